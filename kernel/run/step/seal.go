package step

import (
	"bytes"
	"encoding/json"

	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
)

// Sealer signs and stores the receipts of a run's tree, scrubbed of the
// taint set first.
type Sealer struct {
	// Taint is the runs' taint set: what a sealed unit's or run's result,
	// failure and extra fields carry is scrubbed of it.
	Taint  *credential.Taint
	Signer *receipt.Signer
	Store  *receipt.Store
}

// Sign signs a receipt body after scrubbing its free-form part (Extra:
// evidence, approvals) of the taint set, so the signature covers only
// scrubbed bytes and the receipt verifies as stored.
func (s Sealer) Sign(body receipt.Body) (*receipt.Receipt, []byte, error) {
	if len(body.Extra) > 0 && !s.Taint.Empty() {
		raw, err := json.Marshal(body.Extra)
		if err == nil {
			if clean := s.Taint.ScrubJSON(raw); !bytes.Equal(clean, raw) {
				var extra map[string]any
				if json.Unmarshal(clean, &extra) == nil {
					body.Extra = extra
				}
			}
		}
	}
	return s.Signer.Seal(body)
}

// ScrubResult is the receipt boundary: a result is scrubbed before its
// digest is signed, so the receipt verifies over what the envelope shows.
// A scrubbed document is canonicalized again, as the marker can reorder
// keys.
func (s Sealer) ScrubResult(raw []byte) []byte {
	clean := s.Taint.ScrubJSON(raw)
	if bytes.Equal(clean, raw) {
		return raw
	}
	var v any
	if json.Unmarshal(clean, &v) != nil {
		return clean
	}
	if again, err := canon.Canonical(v); err == nil {
		return again
	}
	return clean
}
