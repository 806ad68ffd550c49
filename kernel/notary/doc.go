// Package notary is the format a runx notary speaks and everything a reader
// needs to check it offline (docs/notary.md).
//
// A notary counter-seals a sealed receipt: it signs a Statement naming the
// receipt's content hash, the time and the statement's position in an
// append-only transparency log. The log is the Go checksum database's
// (golang.org/x/mod/sumdb/tlog: RFC 6962 hashing, stored hashes, inclusion
// and consistency proofs); its checkpoints are signed notes
// (golang.org/x/mod/sumdb/note) in the C2SP tlog-checkpoint form. A Record
// carries the statement, the counter-seal, a signed checkpoint and the
// statement's inclusion proof, so a reader holding the notary's key checks
// it without asking anyone; State keeps the last checkpoint a runx home saw,
// so a log that was rewritten or forked since is reported.
//
// It imports kernel/contract and the sdk only, and gofrs/flock for the lock
// State holds while it checks a checkpoint against the home's view: the
// server, the client and the CLI build on it.
package notary
