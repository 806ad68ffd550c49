// Package canon owns runx's one way of turning a value into bytes that can be
// hashed and signed: RFC 8785 canonical JSON (JCS) and the digests over it,
// named runx.stable-json.v1.
//
// Every digest runx writes (receipt ids, package, closure, authority, inputs
// and output digests, request digests) comes from here, so two parts of the
// system can never disagree on how a value is encoded. IsCanonical answers
// "is this already that form?" without re-encoding, for verifiers; it is
// tested against CanonicalJSON, which remains the definition.
//
// canon is pure: it does no I/O and imports only the standard library and
// github.com/gowebpki/jcs. It must not import any other runx package, because
// every other contract package depends on it.
package canon
