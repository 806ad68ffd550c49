package run

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
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
	if step.Kind != pkg.KindOperation || step.Operation == nil || step.Operation.Approval == nil {
		return nil
	}
	a := step.Operation.Approval
	input := orEmpty(inputs)
	payload := map[string]any{
		"step_id":      step.ID,
		"gate":         GateOperation,
		"reason":       a.Reason,
		"operation":    step.Operation.Ref,
		"input":        input,
		"input_digest": mustDigest(input),
	}
	if a.Type != "" {
		payload["approval_type"] = a.Type
	}
	req, err := rc.bindRequest(step, local, contract.RequestApproval, payload)
	if err != nil {
		return &stepRun{err: err}
	}
	d := rc.decisions[local]
	if d == nil || d.RequestDigest != req.RequestDigest {
		return &stepRun{waiting: []pending{{Request: req, runID: rc.rec.RunID, local: local}}}
	}
	v, err := decisionValue(d)
	if err != nil {
		return &stepRun{err: err}
	}
	extra["approval"] = map[string]any{
		"gate": GateOperation, "approved": v.Approved, "reason": v.Reason,
		"lane": contract.LaneApprovals, "request_digest": d.RequestDigest,
	}
	if !d.Used {
		if err := rc.e.Journal.UseDecision(durable(ctx), rc.rec.RunID, local, nil); err != nil {
			return &stepRun{err: err}
		}
	}
	if v.Approved {
		return nil
	}
	body := rc.stepBody(step, local)
	body.Extra = extra
	body.InputsDigest = mustDigest(input)
	r := rc.settle(ctx, step, local, body, contract.StepRefused, nil, &contract.ErrorBody{
		Code:    contract.SealApprovalDeclined,
		Message: "operation " + step.Operation.Ref + " of step " + step.ID + " was declined, so nothing was sent: " + v.Reason,
	}, nil)
	return &r
}
