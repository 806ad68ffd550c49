// Package attest states a verified receipt tree as an in-toto Statement
// (v1) in a DSSE envelope, so verifiers built for software supply chains
// read runx proofs: the subject is what the run produced, by digest (its
// declared output, every artifact its receipts name, and the root receipt
// itself), the predicate the tree's receipts, whole and signed.
//
// DSSE is the ~30 lines of its protocol (PAE and an ed25519 signature over
// it), not a library: no DSSE or in-toto module is among the modules this
// project may take, and the protocol is small and fixed; a test holds PAE
// to the protocol's own test vector.
//
// attest is pure: it imports the standard library, kernel/receipt (the
// receipt format; the tree is read through a function the caller passes)
// and sdk/canon, sdk/errcode. It never opens a store or a key itself.
package attest
