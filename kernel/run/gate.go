package run

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/script"
	"github.com/runxhq/runx/kernel/run/skillctx"
	"github.com/runxhq/runx/kernel/run/turn"
	"github.com/runxhq/runx/sdk/errcode"
)

// asked is where a unit of rc at local asks a request from (gate.Asked).
func (rc *runCtx) asked(step *pkg.Step, local string) gate.Asked {
	return gate.Asked{RunID: rc.rec.RunID, Local: local, Address: rc.Address(local), StepID: step.ID}
}

// gate runs an agent or ask step: it waits on its request until a decision
// bound to that request's digest arrives, then uses it.
func (rc *runCtx) gate(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, level int) stepRun {
	at := rc.asked(step, local)
	var extra map[string]any
	if step.Kind == pkg.KindAgent {
		skills, err := skillctx.Read(rc.e.Resolver.Resolve, rc.pkg, step)
		if err != nil {
			return stepRun{Err: err}
		} else if len(skills) > 0 { // untrusted advisory data, each by its digest
			extra = map[string]any{skillctx.PayloadKey: skills}
		}
	}
	req, err := gate.Ask(at, rc.pkg, step, inputs, extra)
	if err != nil {
		return stepRun{Err: err}
	}
	wait := stepRun{Waiting: []pending{{Request: req, RunID: rc.rec.RunID, Local: local}}}
	if step.Kind == pkg.KindAgent {
		// A skill call whose child waits is driven again: a child the host
		// answered goes on, and what it still waits on the turn waits on;
		// what the turn's calls asked a person (ask_human) stays asked.
		calls := rc.turnWaits(ctx, step, local, level)
		if calls.Err != nil || calls.Stopped {
			return calls
		}
		wait.Waiting, wait.Refused = append(wait.Waiting, calls.Waiting...), calls.Refused
	}
	// An answer this resume brought wins; otherwise a decision admitted by an
	// earlier driver that died before using it is used now.
	d := rc.Answers[req.Address]
	fresh := d != nil
	if d == nil {
		d = rc.Decisions[local]
	}
	if d == nil || d.RequestDigest != req.RequestDigest {
		return wait
	}
	body := rc.runner().StepBody(step, local)
	body.Execution = execHost
	body.InputsDigest = mustDigest(inputs)
	status, output, failure := contract.StepSuccess, any(nil), (*contract.ErrorBody)(nil)
	switch req.Kind {
	case contract.RequestAgent:
		if err := json.Unmarshal(d.Value, &output); err != nil {
			return refusedAnswer(wait, req.Address, errcode.AnswerInvalid, "the answer's value is not JSON")
		}
		if reason, ok := turn.Failure(step, output); ok {
			// The act could not be done: the step fails with the turn's reason.
			status, output = contract.StepFailed, nil
			failure = &contract.ErrorBody{Code: errcode.TurnFailed, Message: fmt.Sprintf("turn %s failed: %s", req.Address, reason)}
		} else if output, err = checkOutputs(step.ID, step.Outputs, output); err != nil {
			return refusedAnswer(wait, req.Address, contract.CodeOf(err), err.Error())
		}
	case contract.RequestApproval:
		v, err := gate.DecisionValue(d)
		if err != nil {
			return stepRun{Err: err}
		}
		body.Extra = map[string]any{"decision": map[string]any{"approved": v.Approved, "reason": v.Reason, "lane": contract.LaneApprovals}}
		if v.Approved {
			output = map[string]any{"approved": true, "reason": v.Reason}
		} else {
			status = contract.StepFailed
			failure = &contract.ErrorBody{Code: errcode.ApprovalDeclined, Message: fmt.Sprintf("step %s was declined: %s", step.ID, v.Reason)}
		}
	case contract.RequestQuestion:
		if err := json.Unmarshal(d.Value, &output); err != nil {
			return stepRun{Err: err}
		}
		body.Extra = map[string]any{"decision": map[string]any{"lane": contract.LaneApprovals}}
	}
	var calls []receipt.ChildRef
	if req.Kind == contract.RequestAgent {
		// The turn's receipt names every call it made, and each context
		// skill it read by its digest.
		var err error
		if _, calls, err = (script.Log{RunID: rc.rec.RunID, Run: scriptPort{rc}, Journal: rc.e.Journal}).Read(local); err != nil {
			return stepRun{Err: err}
		}
		skills, err := skillctx.Receipt(req.Payload)
		if err != nil {
			return stepRun{Err: err}
		}
		withArtifacts(&body, skills...)
	}
	if req.Kind == contract.RequestAgent && fresh {
		if body.Extra, err = turn.StateAgent(ctx, rc.e.Journal, rc.rec.RunID, req.Address, rc.agents[req.Address], body.Extra); err != nil {
			return stepRun{Err: err}
		}
	}
	s, rec, err := rc.runner().Seal(step, local, body, status, output, failure, calls)
	if err != nil {
		return stepRun{Err: err}
	}
	if fresh {
		// The answer becomes the run's only now, with the step it settled.
		if err := rc.e.Journal.Asks().AdmitDecisions(durable(ctx), rc.rec.RunID, []*journal.Decision{d}); err != nil {
			return stepRun{Err: err}
		}
	}
	rc.e.hook("before_decision_used")
	if err := rc.e.Journal.Asks().UseDecision(durable(ctx), rc.rec.RunID, local, rec); err != nil {
		return stepRun{Err: err}
	}
	return stepRun{Settled: s}
}

func refusedAnswer(wait stepRun, address string, code errcode.Code, message string) stepRun {
	wait.Refused = []contract.RefusedAnswer{{Address: address, Error: contract.ErrorBody{Code: code, Message: message}}}
	return wait
}
