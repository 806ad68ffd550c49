package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/canon"
)

// Codes a skill call's reuse option is refused with.
const (
	// CodeCallReuseUnsupported: reuse on a call that is not a skill call.
	CodeCallReuseUnsupported = "call_reuse_unsupported"
	// CodeCallReuseInvalid: a reuse option that is not {max_age_seconds: n}.
	CodeCallReuseInvalid = "call_reuse_invalid"
)

// Why a skill call that asked for reuse recomputed its result instead: the
// closed vocabulary the call's record and receipt say.
const (
	ReuseNoCandidate     = "reuse_no_candidate"
	ReuseTooOld          = "reuse_too_old"
	ReuseIdentityMissing = "reuse_identity_missing"
	ReuseStepIneligible  = "reuse_step_ineligible"
	ReuseReadChanged     = "reuse_read_changed"
)

// reuseMaxAge bounds max_age_seconds: ten years, far past any sensible
// freshness, so an overflowing duration is refused rather than wrapped.
const reuseMaxAge = 10 * 365 * 24 * 3600

// reuseCandidateScan is how many of the newest sealed runs of a method are
// compared for the same inputs and context.
const reuseCandidateScan = 64

// ReuseOption is a skill call's reuse: {max_age_seconds}.
type ReuseOption = runstate.ReuseOption

// ParseReuse reads a call's reuse option; absent or null asks nothing.
func ParseReuse(raw json.RawMessage) (*ReuseOption, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, contract.Errorf(CodeCallReuseInvalid, "option \"reuse\" is an object {max_age_seconds: <seconds>}")
	}
	for k := range fields {
		if k != "max_age_seconds" {
			return nil, contract.Errorf(CodeCallReuseInvalid, "option \"reuse\" takes only max_age_seconds, not %q", k)
		}
	}
	var n float64
	v, ok := fields["max_age_seconds"]
	if !ok || json.Unmarshal(v, &n) != nil || n != math.Trunc(n) || n < 1 || n > reuseMaxAge {
		return nil, contract.Errorf(CodeCallReuseInvalid, "reuse.max_age_seconds must be a whole number of seconds from 1 to %d", reuseMaxAge)
	}
	return &ReuseOption{MaxAgeSeconds: int64(n)}, nil
}

// ReuseNote is what a call that asked for reuse records: the source it
// reused, or why it recomputed.
type ReuseNote = runstate.ReuseNote

// ReuseSource names a sealed run by its receipt.
type ReuseSource = runstate.ReuseSource

const (
	reuseStatusReused     = "reused"
	reuseStatusRecomputed = "recomputed"
	eventCallReuse        = "call.reuse"
)

// childContext is the digest of what a child run is started under besides
// its package and inputs: the authority it holds, the host's document and
// standing approvals, its act and actor. Two children under the same one
// are the same computation over the same inputs.
func (rc *runCtx) childContext(step *pkg.Step, act string) string {
	hostDigest, _ := gate.Digest(rc.rec.Authority)
	return mustDigest(map[string]any{
		"authority_digest": hostDigest,
		"effective":        authority.ForChild(rc.effective(step)),
		"standing":         rc.Standing,
		"act":              act,
		"actor":            rc.actor(),
	})
}

// reuseChild looks for an earlier sealed run of the call's skill under the
// same resolved inputs and child context, no older than the call allows,
// and whose every step may stand: a step that only transforms what it was
// given keeps its original stamp; a native read of mutable local state is
// made again and must match; anything else recomputes. It returns the
// settled call when the result is reused, and otherwise the note saying
// why the call recomputes, which the run's record keeps.
func (rc *runCtx) reuseChild(ctx context.Context, step *pkg.Step, local string, p *pkg.Package, m *pkg.Method, inputs, childInputs map[string]any, contextDigest string) (*stepRun, *ReuseNote, error) {
	opt := rc.ChildReuse
	note := &ReuseNote{Status: reuseStatusRecomputed, MaxAgeSeconds: opt.MaxAgeSeconds}
	recompute := func(reason, format string, args ...any) (*stepRun, *ReuseNote, error) {
		note.Reason, note.Message = reason, fmt.Sprintf(format, args...)
		return nil, note, rc.e.Journal.AppendEvent(durable(ctx), rc.rec.RunID, "calls", eventCallReuse, map[string]any{"address": rc.address(local), "reuse": note})
	}
	wantInputs, err := canon.Canonical(orEmpty(childInputs))
	if err != nil {
		return nil, nil, err
	}
	closure := rc.e.closureOf(p)
	cands, err := rc.e.Journal.ReuseCandidates(durable(ctx), closure, m.Name, reuseCandidateScan)
	if err != nil {
		return nil, nil, err
	}
	var cand, unproven *journal.Run
	for _, c := range cands {
		if !bytes.Equal(mustCanonical(c.Inputs), wantInputs) {
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
	ref := step.Skill + "#" + m.Name
	if cand == nil && unproven != nil {
		note.Source = &ReuseSource{RunID: unproven.RunID, ReceiptID: unproven.ReceiptID}
		return recompute(ReuseIdentityMissing, "run %s of %s had the same inputs but recorded no child context, so it cannot be shown to be the same computation", unproven.RunID, ref)
	}
	if cand == nil {
		return recompute(ReuseNoCandidate, "no sealed run of %s under the same resolved inputs and child context", ref)
	}
	env, childRef, err := rc.e.sealedChild(cand)
	if err != nil {
		return nil, nil, err
	}
	r, _, err := rc.e.Store.Get(cand.ReceiptID)
	if err != nil {
		return nil, nil, err
	}
	sealed, err := time.Parse(time.RFC3339Nano, r.Body.SealedAt)
	if err != nil {
		return recompute(ReuseIdentityMissing, "run %s's receipt has no readable seal time", cand.RunID)
	}
	age := max(int64(rc.e.Clock().Sub(sealed)/time.Second), 0)
	note.Source = &ReuseSource{RunID: cand.RunID, ReceiptID: cand.ReceiptID, SignedDigest: childRef.SignedDigest, ObservedAt: r.Body.SealedAt, AgeSeconds: age}
	if age > opt.MaxAgeSeconds {
		return recompute(ReuseTooOld, "run %s of %s sealed %d s ago, past max_age_seconds %d", cand.RunID, ref, age, opt.MaxAgeSeconds)
	}
	verdict, err := rc.standsAgain(ctx, step, cand, p, m)
	if err != nil {
		return nil, nil, err
	}
	if verdict.reason != "" {
		return recompute(verdict.reason, "run %s of %s: %s", cand.RunID, ref, verdict.message)
	}
	note.Status, note.Verified = reuseStatusReused, verdict.verified
	var output any
	if err := json.Unmarshal(env.Result, &output); err != nil {
		return nil, nil, err
	}
	body := rc.stepBody(step, local)
	body.Execution = execGraph
	body.InputsDigest = mustDigest(inputs)
	body.Extra = map[string]any{"reuse": note}
	var out stepRun
	if output, err = checkOutputs(step.ID, step.Outputs, output); err != nil {
		out = rc.settle(ctx, step, local, body, contract.StepFailed, nil, contract.BodyOf(err), nil)
	} else {
		out = rc.settle(ctx, step, local, body, contract.StepSuccess, output, nil, nil)
	}
	if out.err == nil {
		out.err = rc.e.Journal.AppendEvent(durable(ctx), rc.rec.RunID, "calls", eventCallReuse, map[string]any{"address": rc.address(local), "reuse": note})
	}
	return &out, note, nil
}
