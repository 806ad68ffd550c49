package canon

import (
	"crypto/sha256"
	"encoding/hex"
)

// DigestPrefix starts every runx digest; it names the hash so a later
// algorithm can be told apart without guessing from the length.
const DigestPrefix = "sha256:"

// digestLen is the length of a digest string: the prefix and 64 hex digits.
const digestLen = len(DigestPrefix) + 2*sha256.Size

// Digest is the runx.stable-json.v1 digest of v: sha256 over Canonical(v),
// written "sha256:" followed by 64 lowercase hex digits.
func Digest(v any) (string, error) {
	if d, ok := plainDigest(v); ok {
		return d, nil
	}
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return DigestBytes(b), nil
}

// DigestBytes hashes b exactly as given. Callers pass canonical bytes; it
// does not canonicalise them, so the same function serves raw file contents
// and stored canonical documents without a second JCS pass.
func DigestBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return DigestPrefix + hex.EncodeToString(sum[:])
}

// ValidDigest reports whether s is exactly "sha256:" and 64 lowercase hex
// digits. Upper case is refused so one digest has one spelling, which lets
// digests be compared as strings and used as file names.
func ValidDigest(s string) bool {
	if len(s) != digestLen || s[:len(DigestPrefix)] != DigestPrefix {
		return false
	}
	for _, c := range []byte(s[len(DigestPrefix):]) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// DigestHex returns the 64 hex digits of a valid digest, for uses that cannot
// hold the colon, such as file names. ok is false for an invalid digest.
func DigestHex(s string) (hexDigits string, ok bool) {
	if !ValidDigest(s) {
		return "", false
	}
	return s[len(DigestPrefix):], true
}

// DigestRaw is the digest of a JSON document's canonical form, or of its
// bytes as given when they do not parse: one digest for the same value
// however it was spaced, and still a digest for what cannot be read.
func DigestRaw(raw []byte) string {
	c, err := CanonicalJSON(raw)
	if err != nil {
		return DigestBytes(raw)
	}
	return DigestBytes(c)
}
