// Package credential owns runx's credential boundary: the secrets kept in
// the runx home (secrets/, 0600 files in a 0700 directory), the connector
// bindings `runx connector use` records (which environment variable or
// stored secret delivers a connector's credential), resolving a connector
// credential's value from them, and the taint set: every value runx
// delivers joins it and is scrubbed, in the encodings a plugin might echo,
// at every output boundary through one Taint (its Scrub, ScrubJSON and
// Writer).
//
// It imports only kernel/contract: every other package asks it, and none
// keeps secret files or redaction of its own.
package credential
