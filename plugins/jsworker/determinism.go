package jsworker

import (
	"crypto/sha256"
	"encoding/binary"
	"time"

	"github.com/runxhq/runx/sdk/canon"
)

// ModuleEpoch is the one instant a deterministic module's Date reads, on
// every run and every machine: the Unix epoch. A module has no clock (the
// deterministic module boundary: no host clock or randomness); one that
// needs a time takes it as an input, where the run records it.
var ModuleEpoch = time.Unix(0, 0).UTC()

// seedDomain separates this derivation from every other digest runx takes.
const seedDomain = "runx.js.random_seed.v1"

// Seed is the Math.random seed for one call: the first 8 bytes of
// sha256(domain, closure digest, digest of the input's canonical JSON), so
// one closure given one input draws one sequence anywhere, and a different
// closure or input draws another.
func Seed(closureDigest string, input []byte) (int64, error) {
	canonical, err := canon.CanonicalJSON(input)
	if err != nil {
		return 0, err
	}
	h := sha256.New()
	for _, part := range []string{seedDomain, closureDigest, canon.DigestBytes(canonical)} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8])), nil
}
