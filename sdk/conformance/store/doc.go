// Package store is the conformance suite for store drivers: the tests that
// prove a driver keeps the governed data plane's semantics (optimistic
// concurrency, idempotency, canonical events and digests, paging, redaction,
// typed refusals) and survives its server being killed mid-append.
//
// Run is for every driver; RunCrash is for drivers whose provider is a server
// a test can kill and restart. runx runs both against its own drivers
// (SQLite, PostgreSQL, Redis) with real servers; a third-party driver author
// calls them the same way.
//
// It imports only the driver contract (sdk/store/driver) and the
// standard library, so a driver in another module can use it.
package store
