package reuse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/canon"
)

// Run is what a reuse decision reads of the run making the skill call,
// when a candidate is found. The engine satisfies it
// (kernel/run/reuseport.go), so this package never imports the engine.
type Run interface {
	// Sealed is a sealed run's result, its signed digest, and its seal
	// time as its receipt records it.
	Sealed(cand *journal.Run) (result json.RawMessage, signedDigest, sealedAt string, err error)
	// StandsAgain walks the candidate's steps: whether each may stand
	// again, its native reads of mutable local state made again.
	StandsAgain(ctx context.Context, cand *journal.Run) (Verdict, error)
}

// Decide looks among cands, the newest sealed runs of the call's method
// under the same closure (newest first, at most CandidateScan), for one of
// the call's skill (ref names it) under the same resolved inputs and child
// context, no older at now than the call allows, and whose every step may
// stand: a step that only transforms what it was given keeps its original
// stamp; a native read of mutable local state is made again and must
// match; anything else recomputes. It returns the note, which the caller
// records (once the call is settled, when reused), and the source's result
// when the note says reused.
func Decide(ctx context.Context, r Run, opt *runstate.ReuseOption, ref string, cands []*journal.Run, now time.Time, childInputs map[string]any, contextDigest string) (*runstate.ReuseNote, json.RawMessage, error) {
	note := &runstate.ReuseNote{Status: StatusRecomputed, MaxAgeSeconds: opt.MaxAgeSeconds}
	recompute := func(reason, format string, args ...any) (*runstate.ReuseNote, json.RawMessage, error) {
		note.Reason, note.Message = reason, fmt.Sprintf(format, args...)
		return note, nil, nil
	}
	if childInputs == nil {
		childInputs = map[string]any{}
	}
	wantInputs, err := canon.Canonical(childInputs)
	if err != nil {
		return nil, nil, err
	}
	var cand, unproven *journal.Run
	for _, c := range cands {
		if !bytes.Equal(canonicalOf(c.Inputs), wantInputs) {
			continue
		}
		if c.ContextDigest == "" {
			if unproven == nil {
				unproven = c // candidates come newest first
			}
			continue
		}
		if c.ContextDigest == contextDigest {
			cand = c
			break
		}
	}
	if cand == nil && unproven != nil {
		note.Source = &runstate.ReuseSource{RunID: unproven.RunID, ReceiptID: unproven.ReceiptID}
		return recompute(IdentityMissing, "run %s of %s had the same inputs but recorded no child context, so it cannot be shown to be the same computation", unproven.RunID, ref)
	}
	if cand == nil {
		return recompute(NoCandidate, "no sealed run of %s under the same resolved inputs and child context", ref)
	}
	result, signedDigest, sealedAt, err := r.Sealed(cand)
	if err != nil {
		return nil, nil, err
	}
	sealed, err := time.Parse(time.RFC3339Nano, sealedAt)
	if err != nil {
		return recompute(IdentityMissing, "run %s's receipt has no readable seal time", cand.RunID)
	}
	age := max(int64(now.Sub(sealed)/time.Second), 0)
	note.Source = &runstate.ReuseSource{RunID: cand.RunID, ReceiptID: cand.ReceiptID, SignedDigest: signedDigest, ObservedAt: sealedAt, AgeSeconds: age}
	if age > opt.MaxAgeSeconds {
		return recompute(TooOld, "run %s of %s sealed %d s ago, past max_age_seconds %d", cand.RunID, ref, age, opt.MaxAgeSeconds)
	}
	verdict, err := r.StandsAgain(ctx, cand)
	if err != nil {
		return nil, nil, err
	}
	if verdict.Reason != "" {
		return recompute(verdict.Reason, "run %s of %s: %s", cand.RunID, ref, verdict.Message)
	}
	note.Status, note.Verified = StatusReused, verdict.Verified
	return note, result, nil
}

// canonicalOf is raw's canonical form, or raw when it has none.
func canonicalOf(raw json.RawMessage) []byte {
	out, err := canon.CanonicalJSON(raw)
	if err != nil {
		return raw
	}
	return out
}
