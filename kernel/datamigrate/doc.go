// Package datamigrate is `runx data migrate`: the out-of-band migration of
// a legacy SQLite event store, which is no run's concern. The kernel's part
// is authority over the filesystem (both paths held to the workspace, the
// workspace lock taken exclusively) and holding the store plugin's proof
// to its own contract; the migration itself is the store plugin's
// (plugins/store/driver/sqlite).
//
// It never imports kernel/run: what it takes of the kernel is the Kernel
// value kernel/run's Kernel gives it (kernel/run/migrateport.go).
package datamigrate
