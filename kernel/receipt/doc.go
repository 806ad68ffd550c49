// Package receipt owns runx.receipt.v1: the receipt body and its signature,
// sealing with the runx home's ed25519 key, the keys a verifier trusts, the
// append-only receipt store (one file per receipt plus index.jsonl) and
// verification of a whole receipt tree within the bound every verifier holds
// a tree to (30,002 receipts, 64 levels below the root).
//
// A receipt id is the digest of its canonical body, and a parent commits each
// child's id and the digest of the child's whole canonical receipt, so a tree
// is content-addressed from the root down and a child never names its parent.
//
// receipt imports only the standard library, github.com/gowebpki/jcs,
// sdk/canon, sdk/atomicfile (itself standard library only),
// kernel/contract/seal (the outcomes and seal reasons, a leaf) and the
// error-code registry sdk/errcode. It must not import the run state
// machine, the journal, the plugin host or any plugin: those seal receipts
// through this package, never the other way round.
package receipt
