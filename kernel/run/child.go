package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/runxhq/runx/kernel/packet"
	"slices"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/sdk/errcode"
)

// childRunID is derived from the parent's run id and the step's address, so
// a resumed parent finds the child it started.
func childRunID(parent, local string) string {
	sum := sha256.Sum256([]byte(parent + "/" + local))
	return "run_" + hex.EncodeToString(sum[:13])
}

// child runs a skill step: a child run with its own receipt, which the step's
// receipt commits. A child holds at most what its step holds.
func (rc *runCtx) child(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, level int) stepRun {
	refuse := func(err error) stepRun {
		body := rc.runner().StepBody(step, local)
		body.Execution = execGraph
		return rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, contract.BodyOf(err), nil)
	}
	if rc.e.Resolver == nil {
		return refuse(contract.Errorf(errcode.SkillNotFound, "this runx resolves no skill steps"))
	}
	p, methodName, err := rc.e.Resolver.Resolve(rc.pkg.Dir, step.Skill)
	if err != nil {
		return refuse(err)
	}
	m, err := p.SelectMethod(methodName)
	if err != nil {
		return refuse(err)
	}
	if err := rc.bound.check(rc.e, p); err != nil {
		return refuse(err)
	}
	if err := rc.e.prepare(ctx, p, m, rc.verified); err != nil {
		return refuse(err)
	}
	if err := gate.ChildLimits(rc.Base, rc.method, step, rc.RunDepth, 1); err != nil {
		return refuse(err)
	}
	// A packet input given by reference gets its content, and the call's
	// receipt names the artifact, on every drive.
	resolved, given, err := packet.Inputs(p, m, rc.e.ProjectDir, []string{rc.rec.RunID}, inputs)
	if err != nil {
		return refuse(err)
	}
	childID := childRunID(rc.rec.RunID, local)
	rec, err := rc.e.Journal.GetRun(durable(ctx), childID)
	var childInputs map[string]any
	if err != nil {
		if contract.CodeOf(err) != errcode.RunNotFound {
			return stepRun{Err: err}
		}
		doc, _ := json.Marshal(resolved)
		childInputs, err = pkg.BindInputs(m, pkg.InputSource{Document: doc, HasDocument: true})
		if err != nil {
			return refuse(contract.Errorf(contract.CodeOf(err), "child skill %s: %v", step.Skill, err))
		}
		act := rc.rec.Act
		if rc.ChildAct != "" {
			act = rc.ChildAct
		}
		contextDigest, err := gate.ChildContext(rc.rec.Authority, gate.Effective(rc.Base, rc.method, step), rc.Standing, act, rc.actor())
		if err != nil {
			return stepRun{Err: err}
		}
		if rc.ChildReuse != nil {
			reused, note, err := reuseRun{rc: rc, step: step, local: local, p: p, m: m}.reuseChild(ctx, inputs, childInputs, contextDigest)
			if err != nil {
				return stepRun{Err: err}
			}
			rc.ReuseNote = note
			if reused != nil {
				return *reused
			}
		}
		rec, err = rc.e.newRecord(Start{Package: p, Method: m, Inputs: childInputs, Act: act, RunID: childID, Authority: rc.rec.Authority}, rc.rec.RunID, local)
		if err != nil {
			return stepRun{Err: err}
		}
		rec.ContextDigest = contextDigest
		if err := rc.e.Journal.CreateRun(durable(ctx), rec); err != nil {
			return stepRun{Err: err}
		}
	} else if err := json.Unmarshal(rec.Inputs, &childInputs); err != nil {
		return stepRun{Err: err}
	}
	body := rc.runner().StepBody(step, local)
	withArtifacts(&body, given...)
	body.Execution = execGraph
	body.InputsDigest = mustDigest(inputs)
	if rc.ReuseNote != nil {
		// The call asked for reuse and recomputed: its receipt says why.
		body.Extra = map[string]any{"reuse": rc.ReuseNote}
	}
	var env *contract.SkillRun
	var ref receipt.ChildRef
	if rec.State == journal.StateSealed {
		// Sealed before a crash kept the parent from recording its step.
		env, ref, err = rc.e.sealedChild(rec)
		if err != nil {
			return stepRun{Err: err}
		}
	} else {
		cc := newRunCtx(rc.e, rec, p, m, childInputs, rc.Budget, level+1, rc.Address(local))
		cc.Answers, cc.agents, cc.Spend, cc.bound, cc.verified = rc.Answers, rc.agents, rc.Spend, rc.bound, rc.verified
		cc.RunDepth, cc.Chain = rc.RunDepth+1, append(slices.Clone(rc.Chain), gate.PackageRef(rc.e.HomeDir, p))
		cc.Base, cc.Standing = authority.ForChild(gate.Effective(rc.Base, rc.method, step)), rc.Standing
		out := cc.drive(ctx)
		cancelled := callCancelled(ctx, out)
		switch out.state {
		case drivePaused:
			return stepRun{Waiting: out.waiting, Refused: out.refused}
		case driveStopped:
			if !cancelled {
				return stepRun{Stopped: true}
			}
		case driveError:
			return stepRun{Err: fmt.Errorf("child run %s: %s", childID, out.failure.Message)}
		}
		if cancelled {
			killCancelled(out, step.Skill)
		}
		env, ref, err = rc.e.sealRun(ctx, cc, out)
		if err != nil {
			return stepRun{Err: err}
		}
	}
	if env.Outcome != seal.OutcomeCompleted {
		failure := env.Error
		if failure == nil {
			failure = &contract.ErrorBody{Code: childOutcomeCode[env.Outcome], Message: "child skill " + step.Skill + " sealed " + string(env.Outcome)}
		}
		failure = &contract.ErrorBody{Code: failure.Code, Message: fmt.Sprintf("child skill %s (run %s): %s", step.Skill, env.RunID, failure.Message)}
		if env.Outcome == seal.OutcomeKilled && env.SealReason == seal.ReasonCancelled {
			if effect, err := rc.e.committedEffect(ctx, env.RunID); err != nil {
				return stepRun{Err: err}
			} else if effect {
				// It committed an effect before the cancel: the call ended
				// as its child did, not cancelled.
				failure.Code = errcode.ChildKilled
			}
		}
		status := contract.StepFailed
		if env.Outcome == seal.OutcomeRefused || env.Outcome == seal.OutcomeBlocked {
			// A child refused is the step refused, so the run says refused
			// rather than failed.
			status = contract.StepRefused
		}
		return rc.runner().Settle(ctx, step, local, body, status, nil, failure, []receipt.ChildRef{ref})
	}
	var output any
	if err := json.Unmarshal(env.Result, &output); err != nil {
		return stepRun{Err: err}
	}
	if output, err = checkOutputs(step.ID, step.Outputs, output); err != nil {
		return rc.runner().Settle(ctx, step, local, body, contract.StepFailed, nil, contract.BodyOf(err), []receipt.ChildRef{ref})
	}
	return rc.runner().Settle(ctx, step, local, body, contract.StepSuccess, output, nil, []receipt.ChildRef{ref})
}

// sealedChild reads back a child run that sealed: its envelope and the
// commitment its parent makes to its receipt.
func (e *engine) sealedChild(rec *journal.Run) (*contract.SkillRun, receipt.ChildRef, error) {
	var env contract.SkillRun
	if err := json.Unmarshal(rec.Envelope, &env); err != nil {
		return nil, receipt.ChildRef{}, fmt.Errorf("child run %s envelope: %w", rec.RunID, err)
	}
	_, raw, err := e.Store.Get(rec.ReceiptID)
	if err != nil {
		return nil, receipt.ChildRef{}, err
	}
	ref, err := receipt.ChildRefOf(raw)
	return &env, ref, err
}

// childOutcomeCode is the code a parent's step fails with when its child
// sealed other than completed with no error of its own.
var childOutcomeCode = map[seal.Outcome]errcode.Code{
	seal.OutcomeFailed:     errcode.ChildFailed,
	seal.OutcomeRefused:    errcode.ChildRefused,
	seal.OutcomeBlocked:    errcode.ChildBlocked,
	seal.OutcomeDeclined:   errcode.ChildDeclined,
	seal.OutcomeSuperseded: errcode.ChildSuperseded,
	seal.OutcomeKilled:     errcode.ChildKilled,
}
