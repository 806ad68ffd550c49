// Package driver owns the storage boundary of the governed data plane: the one
// interface every store driver implements (SQLite, PostgreSQL, Redis, or a
// third party's), and every rule that must not differ between them.
//
// Shared here, so that no driver can drift:
//
//   - request validation: explicit source, resource, partition key and
//     resource declaration (schema-free and broad reads are refused), caps on
//     event size, page size and response bytes;
//   - the event: canonical JSON (RFC 8785), event_digest, event_type
//     derivation, redaction of fields declared secret or private;
//   - the rolling projection digest and its genesis (see projection.go);
//   - event_ref, result_digest and the runx.data.operation_result.v1 packets;
//   - typed errors with stable snake_case codes;
//   - paging rules: the bounded tail, ascending pages after a cursor, the
//     opaque keyset cursor of stream heads.
//
// A driver owns only the storage: the atomic read-check-append, a page
// consistent with the head it reports, and the proof of a commit when its
// provider fails.
// It lives under sdk/ so a third party writes a driver against it without
// importing a plugin; runx's own drivers are plugins/store/driver/{sqlite,
// postgres,redis}, and the conformance suite that proves a driver keeps
// these rules is sdk/conformance/store.
//
// This package does no I/O and must not import kernel packages, plugin
// plumbing or any storage client.
package driver
