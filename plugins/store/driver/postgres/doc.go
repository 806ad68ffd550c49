// Package postgres is the PostgreSQL store driver (jackc/pgx): a pool of
// connections, each with the driver's named statements prepared as it opens,
// and one append routine (runx_store_append, PL/pgSQL) so that an append is
// one round trip and one READ COMMITTED transaction holding the stream
// head's row lock.
//
// It owns its schema (schema.go; SCHEMA.md in the driver package), created
// idempotently under an advisory lock in a PostgreSQL schema of the caller's
// choosing, and the proof of an append whose answer was lost: the backend
// that ran it is ended and the idempotency key read back.
//
// The endpoint URL never carries a password; the password arrives as a
// credential and is scrubbed from anything an error or evidence quotes.
//
// It must not import kernel packages or other drivers.
package postgres
