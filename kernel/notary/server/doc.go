// Package server is the notary's HTTP API (docs/notary.md): notarize a
// sealed receipt under a token, read a record at /r/<content hash>, and the
// transparency log's signed checkpoint and consistency proofs.
//
// A notarize is read natively: the body is bounded, the receipt checked
// with kernel/receipt's CheckSealed (well formed, its signature verifying
// under the key it names), its content hash counter-sealed with the time
// and appended to the log once; a second notarize of the same receipt
// answers the first record. Every error is a typed JSON document, requests
// are rate limited per token, and the http.Server carries timeouts.
//
// It imports kernel/notary, kernel/receipt and its own store; nothing of a
// run.
package server
