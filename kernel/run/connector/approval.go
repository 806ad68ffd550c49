package connector

import (
	"fmt"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// UnboundedMetering reports a call of def that declares metered use with no
// USD quote (a cost without usd_micro) while limits set no money limit.
// Under a limit Money.AdmitQuote refuses it; without one the spec asks
// once for native approval of the exact call, since runx has no use-limit
// authority that could bound it instead. A call with no cost declaration at
// all is not metered by its own account and is left to the authority that
// admitted it.
func UnboundedMetering(def *sdk.Definition, limits authority.Limits) bool {
	if def == nil || def.Cost == nil || def.Cost.USDMicro != nil {
		return false
	}
	_, limited := limits.MaxSpendMicroUSD.Value()
	return !limited
}

// OperatorSummary is the approval request of a manifest operation, built
// by the runtime alone from the admitted connector, operation, target,
// scopes, the exact request's digest, the intent digest and the quoted
// price: package text cannot inject an account of the act. Its gate is
// <gate>:<intent digest>, gate being the engine's name for an operation's
// own approval, so a decision binds that exact act and a changed
// connector, price or payload is confirmed again.
func OperatorSummary(step *pkg.Step, gate string, mo *ManifestOp, inputs map[string]any) (map[string]any, *contract.ErrorBody) {
	checked, err := mo.Op.CheckInputs(inputs)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	b := Binding(mo)
	r, err := sdk.Render(&b, checked)
	if err != nil {
		return nil, &contract.ErrorBody{Code: errcode.ConnectorRequestInvalid, Message: "operation " + mo.Def.ID + ": " + err.Error() + "; nothing was sent"}
	}
	payloadDigest := RequestDigest(r)
	target := RenderTarget(mo.Op, checked)
	callerKey, _ := inputs["idempotency_key"].(string)
	intent := map[string]any{
		"connector": mo.Connector.ID, "version": mo.Connector.Version, "manifest_digest": mo.Connector.ManifestDigest,
		"operation": mo.Op.Name, "operation_digest": mo.Op.Digest, "verb": mo.Op.Verb, "target": target,
		"scopes": orEmptyList(mo.Op.Scopes), "payload_digest": payloadDigest, "provider_key": ProviderKey(mo, checked, callerKey),
	}
	if a := step.Operation.Approval; a != nil {
		intent["approval"] = map[string]any{"reason": a.Reason, "type": a.Type}
	}
	pay, refusal := PaymentOf(mo.Op, checked)
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
		"gate":             gate + ":" + intentDigest,
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
