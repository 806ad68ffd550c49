package run

import (
	"context"
	"fmt"

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
	mo := rc.manifests.Of(rc.pkg, step, rc.e.addedConnectors())
	def := rc.operationDefinition(ctx, step)
	metered := rc.unboundedMetering(step, def)
	required := def != nil && def.Approval == sdk.ApprovalRequired || metered
	if step.Operation.Approval == nil && !required {
		return nil
	}
	a := step.Operation.Approval
	input := orEmpty(inputs)
	var payload map[string]any
	if mo != nil {
		var refusal *contract.ErrorBody
		if payload, refusal = operatorSummary(step, mo, inputs); refusal != nil {
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
	req, err := rc.bindRequest(step, local, contract.RequestApproval, payload)
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

// operatorSummary is the approval request of a manifest operation, built
// by the runtime alone from the admitted connector, operation, target,
// scopes, the exact request's digest, the intent digest and the quoted
// price: package text cannot inject an account of the act. Its gate is
// operation:<intent digest>, so a decision binds that exact act and a
// changed connector, price or payload is confirmed again.
func operatorSummary(step *pkg.Step, mo *connector.ManifestOp, inputs map[string]any) (map[string]any, *contract.ErrorBody) {
	checked, err := mo.Op.CheckInputs(inputs)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	b := connector.Binding(mo)
	r, err := sdk.Render(&b, checked)
	if err != nil {
		return nil, &contract.ErrorBody{Code: errcode.ConnectorRequestInvalid, Message: "operation " + mo.Def.ID + ": " + err.Error() + "; nothing was sent"}
	}
	payloadDigest := connector.RequestDigest(r)
	target := connector.RenderTarget(mo.Op, checked)
	callerKey, _ := inputs["idempotency_key"].(string)
	intent := map[string]any{
		"connector": mo.Connector.ID, "version": mo.Connector.Version, "manifest_digest": mo.Connector.ManifestDigest,
		"operation": mo.Op.Name, "operation_digest": mo.Op.Digest, "verb": mo.Op.Verb, "target": target,
		"scopes": orEmptyList(mo.Op.Scopes), "payload_digest": payloadDigest, "provider_key": connector.ProviderKey(mo, checked, callerKey),
	}
	if a := step.Operation.Approval; a != nil {
		intent["approval"] = map[string]any{"reason": a.Reason, "type": a.Type}
	}
	pay, refusal := connector.PaymentOf(mo.Op, checked)
	if refusal != nil {
		return nil, refusal
	}
	if pay != nil {
		intent["payment"] = pay.Fields()
	}
	intentDigest := mustDigest(intent)
	text := fmt.Sprintf("%s %s %s (%s) at %s under scopes %q: request %s %s, payload %s, intent %s",
		mo.Op.Verb, mo.Connector.ID, mo.Connector.Version, mo.Op.Name, orDash(target), mo.Op.Scopes, r.Method, r.URL, payloadDigest, intentDigest)
	summary := map[string]any{
		"connector": mo.Connector.ID, "operation": mo.Op.Name, "verb": mo.Op.Verb, "target": target,
		"scopes": orEmptyList(mo.Op.Scopes), "method": r.Method, "url": r.URL,
		"payload_digest": payloadDigest, "intent_digest": intentDigest, "text": text,
	}
	if c := mo.Op.Cost; c != nil && c.USDMicro != nil {
		summary["quoted_usd_micro"] = *c.USDMicro
		text += fmt.Sprintf(", quoted %d micro-USD per %s", *c.USDMicro, c.Per)
		summary["text"] = text
	}
	if pay != nil {
		// The amount is the runtime's reading of the declared inputs, so
		// the person approves the money it moves, not a package's account.
		summary["payment"] = pay.Fields()
		summary["text"] = text + fmt.Sprintf(", moving %d %s", pay.Amount, pay.Currency)
	}
	payload := map[string]any{
		"step_id":          step.ID,
		"gate":             GateOperation + ":" + intentDigest,
		"operation":        step.Operation.Ref,
		"operator_summary": summary,
		"intent":           intent,
	}
	if a := step.Operation.Approval; a != nil {
		payload["reason"] = a.Reason
		if a.Type != "" {
			payload["approval_type"] = a.Type
		}
	} else {
		payload["reason"] = "connector " + mo.Connector.ID + " requires approval of every " + mo.Op.Name
	}
	return payload, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// unboundedMetering reports a call that declares metered use with no USD
// quote (a cost without usd_micro) while no money limit is in force. Under a
// limit connector.Money.AdmitQuote refuses it; without one the spec asks
// once for native approval of the exact call, since runx has no use-limit
// authority that could bound it instead. A call with no cost declaration at
// all is not metered by its own account and is left to the authority that
// admitted it.
func (rc *runCtx) unboundedMetering(step *pkg.Step, def *sdk.Definition) bool {
	if def == nil || def.Cost == nil || def.Cost.USDMicro != nil {
		return false
	}
	_, limited := gate.Effective(rc.Base, rc.method, step).Limits.MaxSpendMicroUSD.Value()
	return !limited
}
