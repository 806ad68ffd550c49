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
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/sdk/canon"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// reuseClass is how a step of an earlier run stands when its result is
// offered again.
type reuseClass int

const (
	// reuseTransform only transforms the evidence it was given (a module,
	// a capability declaring no effect): it keeps its original stamp.
	reuseTransform reuseClass = iota
	// reuseLocalRead reads mutable local state (a native tool such as
	// run.read, a capability declaring effect read): it is made again and
	// compared.
	reuseLocalRead
	// reuseProviderRead reads through a provider: it keeps the age bound
	// only on matching confirmed identity evidence.
	reuseProviderRead
	// reuseUnknown has no description to judge it by.
	reuseUnknown
	// reuseIneligible changes something, waits on someone or runs a
	// process or a child: the call recomputes.
	reuseIneligible
)

// classifyForReuse is the pure rule: it reads only the step and the
// capability's description (native says the kernel itself serves it).
func classifyForReuse(s *pkg.Step, native bool, def *sdk.Definition) (reuseClass, string) {
	if s.ForEach != "" {
		return reuseIneligible, "step " + s.ID + " fans out"
	}
	switch s.Kind {
	case pkg.KindModule:
		return reuseTransform, ""
	case pkg.KindTool:
		if native {
			return reuseLocalRead, ""
		}
		if def == nil {
			return reuseUnknown, "step " + s.ID + "'s capability " + s.Tool.Capability + " is not described by any installed plugin"
		}
		switch {
		case def.HasRole(sdk.RoleDataOperation):
			return reuseProviderRead, ""
		case def.Effect == sdk.EffectNone:
			return reuseTransform, ""
		case def.Effect == sdk.EffectRead:
			return reuseLocalRead, ""
		}
		return reuseIneligible, "step " + s.ID + " calls " + s.Tool.Capability + ", whose effect is " + def.Effect
	case pkg.KindOperation:
		if def == nil {
			return reuseUnknown, "step " + s.ID + "'s operation " + s.Operation.Ref + " is not described by any installed connector"
		}
		if def.Effect == sdk.EffectNone || def.Effect == sdk.EffectRead {
			return reuseProviderRead, ""
		}
		return reuseIneligible, "step " + s.ID + " is operation " + s.Operation.Ref + ", whose effect is " + def.Effect
	}
	return reuseIneligible, "step " + s.ID + " is a " + string(s.Kind) + " step, which is never reused"
}

type reuseVerdict struct {
	reason, message string
	verified        []string
}

// standsAgain walks the candidate's steps in order with the scope they
// had: every step must be reusable, and each native read of mutable local
// state is made again, under the calling step's child authority, and must
// give what it gave then.
func (rc *runCtx) standsAgain(ctx context.Context, step *pkg.Step, cand *journal.Run, p *pkg.Package, m *pkg.Method) (reuseVerdict, error) {
	var v reuseVerdict
	fail := func(reason, format string, args ...any) (reuseVerdict, error) {
		v.reason, v.message = reason, fmt.Sprintf(format, args...)
		return v, nil
	}
	steps, err := rc.e.Journal.Steps(durable(ctx), cand.RunID)
	if err != nil {
		return v, err
	}
	var inputs map[string]any
	if err := json.Unmarshal(cand.Inputs, &inputs); err != nil {
		return fail(ReuseIdentityMissing, "its recorded inputs do not decode")
	}
	cc := newRunCtx(rc.e, cand, p, m, inputs, rc.Budget, rc.Depth+1, rc.Path)
	cc.Base, cc.Standing = authority.ForChild(rc.effective(step)), rc.Standing
	cc.RunDepth, cc.Chain = rc.RunDepth+1, rc.Chain
	sc := &scope{input: cc.inputs, steps: map[string]any{}, runID: cand.RunID, act: cand.Act}
	for _, s := range m.Steps {
		rec := steps[s.ID]
		if rec == nil {
			return fail(ReuseIdentityMissing, "step %s has no record", s.ID)
		}
		if rec.Status == contract.StepSkipped {
			sc.steps[s.ID] = nil
			continue
		}
		if rec.Status != contract.StepSuccess {
			return fail(ReuseStepIneligible, "step %s %s", s.ID, rec.Status)
		}
		var recorded any
		if err := json.Unmarshal(rec.Output, &recorded); err != nil {
			return fail(ReuseIdentityMissing, "step %s's recorded output does not decode", s.ID)
		}
		kernelOwned := s.Kind == pkg.KindTool && native.Lookup(s.Tool.Capability) != nil
		var def *sdk.Definition
		switch {
		case s.Kind == pkg.KindTool && !kernelOwned:
			def = rc.e.definition(ctx, s.Tool.Capability)
		case s.Kind == pkg.KindOperation:
			def = rc.e.definition(ctx, operationCapability(s.Operation))
		}
		class, why := classifyForReuse(s, kernelOwned, def)
		switch class {
		case reuseIneligible:
			return fail(ReuseStepIneligible, "%s", why)
		case reuseUnknown:
			return fail(ReuseIdentityMissing, "%s", why)
		case reuseProviderRead:
			// Its receipt records no confirmed instance binding,
			// implementation and presented credential to hold a new
			// read to, so its age cannot be kept.
			return fail(ReuseIdentityMissing, "step %s is a provider read whose receipt records no confirmed instance binding, implementation and credential", s.ID)
		case reuseLocalRead:
			reason, msg, err := cc.readAgain(ctx, s, sc, rec)
			if err != nil {
				return v, err
			}
			if reason != "" {
				return fail(reason, "%s", msg)
			}
			v.verified = append(v.verified, s.ID)
		}
		sc.steps[s.ID] = recorded
	}
	return v, nil
}

// readAgain makes a recorded read again with the inputs it had, checked
// against the digest its receipt committed, and compares what it gives now
// with what it gave then. Nothing is recorded: the read is evidence for
// the reuse decision only.
func (rc *runCtx) readAgain(ctx context.Context, s *pkg.Step, sc *scope, rec *journal.Step) (string, string, error) {
	inputs, err := stepInputs(s, sc)
	if err != nil {
		return ReuseIdentityMissing, fmt.Sprintf("step %s's inputs no longer resolve: %v", s.ID, err), nil
	}
	r, _, err := rc.e.Store.Get(rec.ReceiptID)
	if err != nil {
		return "", "", err
	}
	if r.Body.InputsDigest == "" || r.Body.InputsDigest != mustDigest(inputs) {
		return ReuseIdentityMissing, "step " + s.ID + "'s inputs are not the ones its receipt committed", nil
	}
	if refusal := rc.reachGate(ctx, s, inputs); refusal != nil {
		return ReuseReadChanged, "step " + s.ID + "'s read is refused now: " + refusal.Message, nil
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
		return ReuseReadChanged, "step " + s.ID + "'s read made again failed (" + failure.Code + ")", nil
	}
	now, err := canon.Canonical(out)
	if err != nil {
		return "", "", err
	}
	if !bytes.Equal(now, mustCanonical(rec.Output)) {
		return ReuseReadChanged, "step " + s.ID + "'s read made again gives a different result (" + canon.DigestBytes(now) + ", was " + canon.DigestBytes(mustCanonical(rec.Output)) + ")", nil
	}
	return "", "", nil
}
