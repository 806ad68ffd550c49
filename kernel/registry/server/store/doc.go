// Package store is the registry server's storage: published versions (the
// signed record and the files), the latest version of each package for
// search, publish tokens (only their SHA-256), namespace trust tiers and the
// registry's signing key.
//
// Two implementations share one contract: SQLite (modernc, one file in the
// server's data directory, the default) and PostgreSQL (pgx), which lets
// several server replicas serve one registry. Both create their schema
// idempotently, both keep a published version immutable (a second publish of
// the same kind, name and version is ErrVersionExists, decided by a unique
// key, never by a read before the write), and both create the signing key
// once: on PostgreSQL under a one-row table's primary key, so replicas that
// start together agree on one key.
//
// It imports database drivers and kernel/registry's vocabulary only; it knows
// nothing of HTTP.
package store
