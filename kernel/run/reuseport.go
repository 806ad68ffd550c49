package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/kernel/run/reuse"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/canon"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// ReuseOption is a skill call's reuse: {max_age_seconds}.
type ReuseOption = runstate.ReuseOption

// ReuseNote is what a call that asked for reuse records: the source it
// reused, or why it recomputed.
type ReuseNote = runstate.ReuseNote

// ReuseSource names a sealed run by its receipt.
type ReuseSource = runstate.ReuseSource

// reuseRun is a skill call that asked for reuse, as the reuse decision
// sees it (reuse.Run): the engine's side of the port, so kernel/run/reuse
// never imports the engine.
type reuseRun struct {
	rc    *runCtx
	step  *pkg.Step
	local string
	p     *pkg.Package
	m     *pkg.Method
}

// reuseChild decides whether the call reuses an earlier sealed run
// (reuse.Decide). It returns the settled call when the result is reused,
// and otherwise the note saying why the call recomputes, which the run's
// record keeps.
func (r reuseRun) reuseChild(ctx context.Context, inputs, childInputs map[string]any, contextDigest string) (*stepRun, *ReuseNote, error) {
	rc, step, local := r.rc, r.step, r.local
	cands, err := rc.e.Journal.ReuseCandidates(durable(ctx), rc.e.closureOf(r.p), r.m.Name, reuse.CandidateScan)
	if err != nil {
		return nil, nil, err
	}
	note, result, err := reuse.Decide(ctx, r, rc.ChildReuse, step.Skill+"#"+r.m.Name, cands, rc.e.Clock(), childInputs, contextDigest)
	if err != nil {
		return nil, nil, err
	}
	if note.Status != reuse.StatusReused {
		return nil, note, r.record(ctx, note)
	}
	var output any
	if err := json.Unmarshal(result, &output); err != nil {
		return nil, nil, err
	}
	body := rc.runner().StepBody(step, local)
	body.Execution = execGraph
	body.InputsDigest = mustDigest(inputs)
	body.Extra = map[string]any{"reuse": note}
	var out stepRun
	if output, err = checkOutputs(step.ID, step.Outputs, output); err != nil {
		out = rc.runner().Settle(ctx, step, local, body, contract.StepFailed, nil, contract.BodyOf(err), nil)
	} else {
		out = rc.runner().Settle(ctx, step, local, body, contract.StepSuccess, output, nil, nil)
	}
	if out.Err == nil {
		out.Err = r.record(ctx, note)
	}
	return &out, note, nil
}

// record appends what became of the call's reuse to the run's record.
func (r reuseRun) record(ctx context.Context, note *ReuseNote) error {
	return r.rc.e.Journal.AppendEvent(durable(ctx), r.rc.rec.RunID, "calls", reuse.EventCallReuse, map[string]any{"address": r.rc.Address(r.local), "reuse": note})
}

func (r reuseRun) Sealed(cand *journal.Run) (json.RawMessage, string, string, error) {
	env, childRef, err := r.rc.e.sealedChild(cand)
	if err != nil {
		return nil, "", "", err
	}
	rcpt, _, err := r.rc.e.Store.Get(cand.ReceiptID)
	if err != nil {
		return nil, "", "", err
	}
	return env.Result, childRef.SignedDigest, rcpt.Body.SealedAt, nil
}

// StandsAgain walks the candidate's steps in order with the scope they
// had: every step must be reusable, and each native read of mutable local
// state is made again, under the calling step's child authority, and must
// give what it gave then.
func (r reuseRun) StandsAgain(ctx context.Context, cand *journal.Run) (reuse.Verdict, error) {
	rc, step, p, m := r.rc, r.step, r.p, r.m
	var v reuse.Verdict
	fail := func(reason, format string, args ...any) (reuse.Verdict, error) {
		v.Reason, v.Message = reason, fmt.Sprintf(format, args...)
		return v, nil
	}
	steps, err := rc.e.Journal.Steps(durable(ctx), cand.RunID)
	if err != nil {
		return v, err
	}
	var inputs map[string]any
	if err := json.Unmarshal(cand.Inputs, &inputs); err != nil {
		return fail(reuse.IdentityMissing, "its recorded inputs do not decode")
	}
	cc := newRunCtx(rc.e, cand, p, m, inputs, rc.Budget, rc.Depth+1, rc.Path)
	cc.Base, cc.Standing = authority.ForChild(gate.Effective(rc.Base, rc.method, step)), rc.Standing
	cc.RunDepth, cc.Chain = rc.RunDepth+1, rc.Chain
	sc := &scope{input: cc.inputs, steps: map[string]any{}, runID: cand.RunID, act: cand.Act}
	for _, s := range m.Steps {
		rec := steps[s.ID]
		if rec == nil {
			return fail(reuse.IdentityMissing, "step %s has no record", s.ID)
		}
		if rec.Status == contract.StepSkipped {
			sc.steps[s.ID] = nil
			continue
		}
		if rec.Status != contract.StepSuccess {
			return fail(reuse.StepIneligible, "step %s %s", s.ID, rec.Status)
		}
		var recorded any
		if err := json.Unmarshal(rec.Output, &recorded); err != nil {
			return fail(reuse.IdentityMissing, "step %s's recorded output does not decode", s.ID)
		}
		kernelOwned := s.Kind == pkg.KindTool && native.Lookup(s.Tool.Capability) != nil
		var def *sdk.Definition
		switch {
		case s.Kind == pkg.KindTool && !kernelOwned:
			def = definitionOf(ctx, rc.e.Host, s.Tool.Capability)
		case s.Kind == pkg.KindOperation:
			def = definitionOf(ctx, rc.e.Host, operationCapability(s.Operation))
		}
		class, why := reuse.Classify(s, kernelOwned, def)
		switch class {
		case reuse.Ineligible:
			return fail(reuse.StepIneligible, "%s", why)
		case reuse.Unknown:
			return fail(reuse.IdentityMissing, "%s", why)
		case reuse.ProviderRead:
			// Its receipt records no confirmed instance binding,
			// implementation and presented credential to hold a new
			// read to, so its age cannot be kept.
			return fail(reuse.IdentityMissing, "step %s is a provider read whose receipt records no confirmed instance binding, implementation and credential", s.ID)
		case reuse.LocalRead:
			reason, msg, err := readAgain(ctx, cc, s, sc, rec)
			if err != nil {
				return v, err
			}
			if reason != "" {
				return fail(reason, "%s", msg)
			}
			v.Verified = append(v.Verified, s.ID)
		}
		sc.steps[s.ID] = recorded
	}
	return v, nil
}

// readAgain makes a recorded read again, in cc, the candidate's run with the inputs it had, checked
// against the digest its receipt committed, and compares what it gives now
// with what it gave then. Nothing is recorded: the read is evidence for
// the reuse decision only.
func readAgain(ctx context.Context, rc *runCtx, s *pkg.Step, sc *scope, rec *journal.Step) (string, string, error) {
	inputs, err := stepInputs(s, sc)
	if err != nil {
		return reuse.IdentityMissing, fmt.Sprintf("step %s's inputs no longer resolve: %v", s.ID, err), nil
	}
	r, _, err := rc.e.Store.Get(rec.ReceiptID)
	if err != nil {
		return "", "", err
	}
	if r.Body.InputsDigest == "" || r.Body.InputsDigest != mustDigest(inputs) {
		return reuse.IdentityMissing, "step " + s.ID + "'s inputs are not the ones its receipt committed", nil
	}
	if refusal := rc.reachGate(ctx, s, inputs); refusal != nil {
		return reuse.ReadChanged, "step " + s.ID + "'s read is refused now: " + refusal.Message, nil
	}
	body := receipt.Body{Runtime: &receipt.Runtime{}}
	out, failure, _ := rc.execute(ctx, s, s.ID, inputs, &body)
	if failure == nil && s.ResultAs != "" {
		out = map[string]any{s.ResultAs: out}
	}
	if failure == nil {
		if out, err = checkOutputs(s.ID, s.Outputs, out); err != nil {
			failure = contract.BodyOf(err)
		}
	}
	if failure != nil {
		return reuse.ReadChanged, "step " + s.ID + "'s read made again failed (" + string(failure.Code) + ")", nil
	}
	now, err := canon.Canonical(out)
	if err != nil {
		return "", "", err
	}
	if !bytes.Equal(now, mustCanonical(rec.Output)) {
		return reuse.ReadChanged, "step " + s.ID + "'s read made again gives a different result (" + canon.DigestBytes(now) + ", was " + canon.DigestBytes(mustCanonical(rec.Output)) + ")", nil
	}
	return "", "", nil
}
