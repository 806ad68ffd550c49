// Package client talks to a runx registry over its HTTP API (docs/registry.md,
// "Client"): search, a package's versions, a version's signed record and
// files, publish, whoami and the registry's keys; and it installs a version
// into a project through kernel/registry's write-once Install.
//
// The registry is not trusted. Every answer is read under a size bound and a
// deadline, decoded into the shape the API promises or refused, and a record
// is used only once it names the package asked for and verifies under a key
// the trust store holds for its namespace. A file the registry sends must be
// a plain relative path the signed record names, with the bytes the record
// digests; anything else is refused before a byte is written.
//
// It imports kernel/registry and net/http; kernel/run never imports it: a run
// gets its fetches through the small interface cmd/runx hands the kernel.
package client
