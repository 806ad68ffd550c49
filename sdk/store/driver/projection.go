package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// The projection digest is a constant-size rolling commitment to a stream's
// whole ordered history, so a reader can prove "this is the stream as of
// version v" without re-reading it:
//
//	P(0) = SHA-256("runx.data.projection.v1")
//	P(v) = SHA-256( P(v-1) || E(v) )
//
// where P and E are the raw 32-byte digests (E(v) is the event_digest of the
// event at version v: SHA-256 of its canonical stored bytes) and || is byte
// concatenation, so each step hashes exactly 64 bytes. Digests are written
// "sha256:" + 64 lowercase hex digits. PostgreSQL computes the same step in
// SQL (sha256(prev || event)), and the conformance suite recomputes it from
// the events of every driver.
const projectionGenesisLabel = "runx.data.projection.v1"

// GenesisProjection is P(0): the projection digest of a stream with no events.
var GenesisProjection = func() string {
	sum := sha256.Sum256([]byte(projectionGenesisLabel))
	return DigestPrefix + hex.EncodeToString(sum[:])
}()

// NextProjection is P(v) from P(v-1) and E(v).
func NextProjection(previous, eventDigest string) (string, error) {
	prev, err := rawDigest(previous)
	if err != nil {
		return "", err
	}
	ev, err := rawDigest(eventDigest)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(prev)
	h.Write(ev)
	return DigestPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// RecomputeProjection folds event digests, in version order from version 1,
// into the projection digest at the last of them.
func RecomputeProjection(eventDigests []string) (string, error) {
	p := GenesisProjection
	for _, d := range eventDigests {
		next, err := NextProjection(p, d)
		if err != nil {
			return "", err
		}
		p = next
	}
	return p, nil
}

// ValidDigest reports whether s is "sha256:" and 64 lowercase hex digits.
func ValidDigest(s string) bool {
	_, err := rawDigest(s)
	return err == nil
}

func rawDigest(s string) ([]byte, error) {
	hexPart, ok := strings.CutPrefix(s, DigestPrefix)
	if !ok || len(hexPart) != 64 || strings.ToLower(hexPart) != hexPart {
		return nil, Errorf(errcode.StoreCorrupt, "a stored digest is malformed")
	}
	b, err := hex.DecodeString(hexPart)
	if err != nil {
		return nil, Errorf(errcode.StoreCorrupt, "a stored digest is malformed")
	}
	return b, nil
}
