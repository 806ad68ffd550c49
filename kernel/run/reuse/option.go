package reuse

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/errcode"
)

// Codes a skill call's reuse option is refused with.

// Why a skill call that asked for reuse recomputed its result instead: the
// closed vocabulary the call's record and receipt say.
const (
	NoCandidate     = "reuse_no_candidate"
	TooOld          = "reuse_too_old"
	IdentityMissing = "reuse_identity_missing"
	StepIneligible  = "reuse_step_ineligible"
	ReadChanged     = "reuse_read_changed"
)

// maxAge bounds max_age_seconds: ten years, far past any sensible
// freshness, so an overflowing duration is refused rather than wrapped.
const maxAge = 10 * 365 * 24 * 3600

// CandidateScan is how many of the newest sealed runs of a method are
// compared for the same inputs and context.
const CandidateScan = 64

// Parse reads a call's reuse option; absent or null asks nothing.
func Parse(raw json.RawMessage) (*runstate.ReuseOption, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, contract.Errorf(errcode.CallReuseInvalid, "option \"reuse\" is an object {max_age_seconds: <seconds>}")
	}
	for k := range fields {
		if k != "max_age_seconds" {
			return nil, contract.Errorf(errcode.CallReuseInvalid, "option \"reuse\" takes only max_age_seconds, not %q", k)
		}
	}
	var n float64
	v, ok := fields["max_age_seconds"]
	if !ok || json.Unmarshal(v, &n) != nil || n != math.Trunc(n) || n < 1 || n > maxAge {
		return nil, contract.Errorf(errcode.CallReuseInvalid, "reuse.max_age_seconds must be a whole number of seconds from 1 to %d", maxAge)
	}
	return &runstate.ReuseOption{MaxAgeSeconds: int64(n)}, nil
}

// What became of a call that asked for reuse (ReuseNote.Status), and the
// event its run records saying so.
const (
	StatusReused     = "reused"
	StatusRecomputed = "recomputed"
	EventCallReuse   = "call.reuse"
)
