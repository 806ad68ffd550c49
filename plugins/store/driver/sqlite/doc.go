// Package sqlite is the native SQLite store driver (modernc.org/sqlite, no
// cgo): the default for the workspace store (.runx/store.sqlite) and for
// unbound local:// sources.
//
// It owns the SQLite schema (schema.go; SCHEMA.md in the driver package), the
// fingerprint of a file's schema (Inspect), and the transactions: one
// BEGIN IMMEDIATE transaction per append on a single serialized write
// connection, reads of a page and its head in one statement on a pool of
// query-only connections, WAL so readers never block the writer.
//
// It opens only the current schema. A recognized legacy file is refused with
// store_needs_migration and an unrecognized one with
// store_schema_unrecognized; neither is modified. Migration is out of band
// (`runx data migrate`), never implicit on open.
//
// It must not import kernel packages or other drivers.
package sqlite
