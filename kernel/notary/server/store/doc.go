// Package store is the notary server's storage: the log's entries (each
// statement's leaf and counter-seal, found by the receipt's content hash),
// the log's stored hashes (golang.org/x/mod/sumdb/tlog's layout), tokens
// (only their SHA-256) and the notary's signing key.
//
// Two implementations share one contract: SQLite (modernc, one file in the
// server's data directory, the default) and PostgreSQL (pgx), which lets
// several replicas serve one log. An append happens under the log's one
// writer lock (SQLite's BEGIN IMMEDIATE, a PostgreSQL advisory transaction
// lock), so entries are numbered without gaps and every replica computes
// the same tree; a content hash is logged once, decided by a unique key.
//
// It imports database drivers, tlog and sdk/errcode only; it knows nothing
// of HTTP.
package store
