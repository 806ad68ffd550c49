// Package server is the registry's HTTP API (docs/registry.md, "Server"):
// search, a package and its versions, a version's signed record and files,
// the registry's public key, the caller's namespaces, and publish.
//
// A publish is read natively: the server decodes the files, builds the
// package with kernel/registry's BuildFiles (the same rules as `runx registry
// package`), checks the publisher's token owns the namespace, signs the
// record with the registry's ed25519 key and stores it; a version is never
// published twice. Every request body is bounded, every error is a typed
// JSON document, and the http.Server carries timeouts.
//
// It imports kernel/registry and its own store; nothing of a run.
package server
