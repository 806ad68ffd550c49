// Package canon owns runx's one way of turning a value into bytes that can be
// hashed and signed: RFC 8785 canonical JSON (JCS) and the digests over it,
// named runx.stable-json.v1.
//
// Every digest runx writes (receipt ids, package, closure, authority, inputs
// and output digests, request digests, the store's event and projection
// digests) comes from here, so no two parts of the system, kernel or
// plugin, can disagree on how a value is encoded. It lives under sdk/ so
// plugins (which never import the kernel) use the same implementation, and
// the kernel imports it directly. IsCanonical answers "is
// this already that form?" without re-encoding, for verifiers; it is tested
// against CanonicalJSON, which remains the definition.
//
// canon is pure: it does no I/O and imports only the standard library,
// github.com/gowebpki/jcs and internal/jsonscan (its fast path's scanner). It
// must not import any other runx package, because every contract package
// depends on it.
package canon
