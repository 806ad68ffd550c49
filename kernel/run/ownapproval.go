package run

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// GateOperation marks a request as an operation's own approval: the effect
// owns the decision (system-architecture.md, "Effect and finality
// boundary"), so it is asked under every authority, once, before dispatch.
const GateOperation = "operation"

// ownApproval asks the host for the one decision an operation step's own
// `approval: {reason, type}` requires before anything is sent. The request
// carries the exact operation, its resolved input and that input's digest,
// so an approval binds to what will be sent and to nothing else. It returns
// nil when the step may be dispatched now; otherwise what the step waits on
// or settles as (a decline seals the run declined, with nothing sent).
func (rc *runCtx) ownApproval(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, extra map[string]any) *stepRun {
	if step.Kind != pkg.KindOperation || step.Operation == nil {
		return nil
	}
	// An operation whose description requires approval always asks, whether
	// a manifest or a plugin's Describe declares it: both are read from the
	// one Definition, so a third-party connector gets what a manifest gets.
	mo := rc.manifests.Of(rc.pkg, step, rc.e.addedConnectors().With(rc.verified))
	def := rc.operationDefinition(ctx, step)
	metered := connector.UnboundedMetering(def, gate.Effective(rc.Base, rc.method, step).Limits)
	required := def != nil && def.Approval == sdk.ApprovalRequired || metered
	if step.Operation.Approval == nil && !required {
		return nil
	}
	a := step.Operation.Approval
	input := orEmpty(inputs)
	var payload map[string]any
	if mo != nil {
		var refusal *contract.ErrorBody
		if payload, refusal = connector.OperatorSummary(step, GateOperation, mo, inputs); refusal != nil {
			body := rc.runner().StepBody(step, local)
			body.InputsDigest = mustDigest(input)
			r := rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, refusal, nil)
			return &r
		}
	} else {
		payload = map[string]any{
			"step_id":      step.ID,
			"gate":         GateOperation,
			"operation":    step.Operation.Ref,
			"input":        input,
			"input_digest": mustDigest(input),
		}
		switch {
		case a != nil:
			payload["reason"] = a.Reason
			if a.Type != "" {
				payload["approval_type"] = a.Type
			}
		case metered:
			payload["reason"] = "operation " + step.Operation.Ref + " declares metered use with no USD quote and no money limit bounds this run: approve this exact call once"
		default:
			// Required by the description alone: the reason is the
			// runtime's, never package text.
			payload["reason"] = "operation " + step.Operation.Ref + " requires approval (declared by its connector)"
		}
	}
	req, err := rc.asked(step, local).Bind(contract.RequestApproval, payload)
	if err != nil {
		return &stepRun{Err: err}
	}
	d := rc.Decisions[local]
	if d == nil || d.RequestDigest != req.RequestDigest {
		return &stepRun{Waiting: []pending{{Request: req, RunID: rc.rec.RunID, Local: local}}}
	}
	v, err := gate.DecisionValue(d)
	if err != nil {
		return &stepRun{Err: err}
	}
	extra["approval"] = map[string]any{
		"gate": payload["gate"], "approved": v.Approved, "reason": v.Reason,
		"lane": contract.LaneApprovals, "request_digest": d.RequestDigest,
	}
	if !d.Used {
		if err := rc.e.Journal.Asks().UseDecision(durable(ctx), rc.rec.RunID, local, nil); err != nil {
			return &stepRun{Err: err}
		}
	}
	if v.Approved {
		return nil
	}
	body := rc.runner().StepBody(step, local)
	body.Extra = extra
	body.InputsDigest = mustDigest(input)
	r := rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, &contract.ErrorBody{
		Code:    errcode.ApprovalDeclined,
		Message: "operation " + step.Operation.Ref + " of step " + step.ID + " was declined, so nothing was sent: " + v.Reason,
	}, nil)
	return &r
}
