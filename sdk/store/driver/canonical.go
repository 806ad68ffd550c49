package driver

import "github.com/runxhq/runx/sdk/canon"

// canonObject is the store's name for canon.Object: result digests are
// taken over fixed shapes written straight into a buffer (see canon.Object).
type canonObject = canon.Object

// CanonicalStrings is the RFC 8785 form of a JSON array of strings, for
// drivers that derive names from a stream's address.
func CanonicalStrings(parts ...string) []byte { return canon.Strings(parts...) }

// redactionsCanon is the canonical form of a redaction list.
func redactionsCanon(rs []Redaction) []canonObject {
	out := make([]canonObject, len(rs))
	for i, r := range rs {
		out[i] = canonObject{"event_ref": r.EventRef, "path": r.Path, "class": r.Class}
	}
	return out
}
