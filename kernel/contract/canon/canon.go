package canon

import sdkcanon "github.com/runxhq/runx/sdk/canon"

// Canonical JSON has one implementation, sdk/canon, shared by the kernel and
// the plugins; these names keep the kernel's contract packages reading as
// they did.

// Profile names the canonical encoding every runx digest is taken over.
const Profile = sdkcanon.Profile

// DigestPrefix starts every digest runx writes.
const DigestPrefix = sdkcanon.DigestPrefix

// Canonical encodes v in RFC 8785 form (see sdk/canon.Canonical).
func Canonical(v any) ([]byte, error) { return sdkcanon.Canonical(v) }

// CanonicalJSON rewrites one JSON document in RFC 8785 form.
func CanonicalJSON(raw []byte) ([]byte, error) { return sdkcanon.CanonicalJSON(raw) }

// IsCanonical reports whether b is exactly the RFC 8785 form of its document.
func IsCanonical(b []byte) bool { return sdkcanon.IsCanonical(b) }

// Digest is the sha256 digest of v's canonical form.
func Digest(v any) (string, error) { return sdkcanon.Digest(v) }

// DigestBytes is the sha256 digest of bytes already canonical.
func DigestBytes(b []byte) string { return sdkcanon.DigestBytes(b) }

// ValidDigest reports whether s is "sha256:" and 64 lowercase hex digits.
func ValidDigest(s string) bool { return sdkcanon.ValidDigest(s) }

// DigestHex returns the hex digits of a valid digest.
func DigestHex(s string) (string, bool) { return sdkcanon.DigestHex(s) }
