package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The finality chain of a connector write (system-architecture.md, "Effect
// and finality boundary"): resolved authority and the effect's own approval
// are decided before this; then an idempotent attempt under a provider key
// recorded durably before anything leaves, the provider's acknowledgement,
// an identity-bound readback, and finality, or an explicit recovery state:
// an outcome runx cannot confirm stays pending at <step>/retry, and the next
// driver reconciles it from custody (a readback) before it ever sends again.

// Refusal and failure codes of the chain.
const (
	CodeIdempotencyKeyMissing  = "idempotency_key_missing"
	CodeIdempotencyKeyConflict = "idempotency_key_conflict"
	CodeIdempotencyKeyInFlight = "idempotency_key_in_flight"
	CodeAlreadyDoneRebound     = "already_done_binding_changed"
	CodeRetryDeclined          = "retry_declined"
)

// writeCall is one connector write being carried to finality.
type writeCall struct {
	mo          *connector.ManifestOp
	inputs      map[string]any // checked
	providerKey string
	bodyDigest  string
	binding     string
	planDigest  string
	payment     *connector.Payment // what it moves, or nil
	// reask, when set, is why a person's earlier decision on this write's
	// retry is not carried out and they are asked again.
	reask string
}

// finalityResult is what the chain settled; key names the provider key to
// mark done once the step's receipt is sealed.
type finalityResult struct {
	output  any
	failure *contract.ErrorBody
	status  string
	wait    *pending
	key     string
}

func (rc *runCtx) prepareWrite(step *pkg.Step, mo *connector.ManifestOp, inputs map[string]any) (*writeCall, *contract.ErrorBody) {
	checked, err := mo.Op.CheckInputs(inputs)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	callerKey, _ := inputs["idempotency_key"].(string)
	if callerKey == "" {
		return nil, &contract.ErrorBody{Code: CodeIdempotencyKeyMissing, Message: "step " + step.ID + " writes through " + mo.Def.ID + " and names no idempotency_key; a write names one, which a retry reuses; nothing was sent"}
	}
	b := connector.Binding(mo)
	r, err := sdk.Render(&b, checked)
	if err != nil {
		return nil, &contract.ErrorBody{Code: sdk.CodeRequestInvalid, Message: "operation " + mo.Def.ID + ": " + err.Error() + "; nothing was sent"}
	}
	pay, refusal := connector.PaymentOf(mo.Op, checked)
	if refusal != nil {
		return nil, refusal
	}
	w := &writeCall{
		mo: mo, inputs: checked, providerKey: connector.ProviderKey(mo, checked, callerKey),
		bodyDigest: requestDigest(r),
		binding:    mustDigest(map[string]any{"connector": mo.Connector.ID, "base_url": mo.Connector.BaseURL, "operation_digest": mo.Op.Digest}),
		payment:    pay,
	}
	plan := map[string]any{"binding": w.binding, "body_digest": w.bodyDigest, "provider_key": w.providerKey}
	if pay != nil {
		// The money it moves is part of the plan, not only of the body.
		plan["payment"] = pay.Fields()
	}
	w.planDigest = mustDigest(plan)
	return w, nil
}

// requestDigest identifies a rendered request exactly.
func requestDigest(r *sdk.RenderedRequest) string {
	var body any
	if r.Body != nil {
		body = json.RawMessage(r.Body)
	}
	return mustDigest(map[string]any{"method": r.Method, "url": r.URL, "body": body})
}

// finality carries one connector write through the chain.
func (rc *runCtx) finality(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, body *receipt.Body, mo *connector.ManifestOp) finalityResult {
	w, refusal := rc.prepareWrite(step, mo, inputs)
	if refusal != nil {
		return finalityResult{failure: refusal, status: contract.StepRefused}
	}
	cx := body.Extra["connector"].(map[string]any)
	cx["provider_key"], cx["body_digest"], cx["plan_digest"] = w.providerKey, w.bodyDigest, w.planDigest
	if w.payment != nil {
		cx["payment"] = w.payment.Fields()
	}
	res := finalityResult{key: w.providerKey}
	row, err := rc.e.Journal.OperationKey(durable(ctx), w.providerKey)
	if err != nil {
		return finalityResult{failure: contract.BodyOf(err), status: contract.StepFailed}
	}
	rc.e.hook("operation_key_read")
	if row != nil && row.State != journal.KeyRefused {
		if row.BodyDigest != w.bodyDigest {
			return finalityResult{status: contract.StepRefused, failure: &contract.ErrorBody{Code: CodeIdempotencyKeyConflict, Message: fmt.Sprintf(
				"step %s: its idempotency_key was already used for another request body of %s (run %s, %s); one key means one intent, so use a new key for a new body; nothing was sent", step.ID, mo.Def.ID, row.RunID, row.Address)}}
		}
		switch row.State {
		case journal.KeyDone, journal.KeyConfirmed:
			if row.Binding != w.binding {
				return finalityResult{status: contract.StepRefused, failure: &contract.ErrorBody{Code: CodeAlreadyDoneRebound, Message: fmt.Sprintf(
					"step %s: the act under this key was done by %s as the connector stood then, and its connector or operation has changed since; nothing was sent", step.ID, orUnsealed(row.ReceiptID))}}
			}
			return rc.doneBefore(step, local, w, row, cx, res)
		default:
			// Unsettled: reconcile from custody before anything is sent.
			// Only a person's {"retry": true} sends it again; with nothing
			// settling it and no decision, the call waits on its retry.
			r, outcome := rc.reconcile(ctx, step, local, w, row, cx, res)
			switch outcome {
			case reconcileSettled:
				return r
			case reconcileUnsettled:
				return rc.retryPending(step, local, w, row, cx, res, unsettledAttempt(step, w, row))
			}
		}
	}
	prior := 0
	if row != nil {
		prior = row.Attempts
	}
	return rc.attempt(ctx, step, local, w, prior, inputs, body, cx, res)
}

func orUnsealed(receiptID string) string {
	if receiptID == "" {
		return "an earlier call whose receipt was not sealed"
	}
	return "receipt " + receiptID
}

// doneBefore answers a write whose act custody already holds as done: it
// sends nothing and returns what was done. Another call names the receipt
// that did the act and records no new charge.
func (rc *runCtx) doneBefore(step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, cx map[string]any, res finalityResult) finalityResult {
	out, failure := answerOf(step.ID, w.mo, row.Response)
	if failure != nil {
		return finalityResult{failure: failure, status: contract.StepFailed}
	}
	if row.RunID == rc.rec.RunID && row.Address == local {
		// This call's own act, confirmed before its driver stopped.
		cx["finality"] = connector.FinalityConfirmed
	} else {
		cx["finality"] = connector.FinalityAlreadyDone
		cx["already_done"] = map[string]any{"receipt_id": row.ReceiptID, "plan_digest": row.PlanDigest, "run_id": row.RunID}
		cx["settled_usd_micro"] = 0
		res.key = "" // the act's receipt is the earlier one
	}
	res.output, res.status = out, contract.StepSuccess
	return res
}

// answerOf is the operation's output from a recorded provider answer.
func answerOf(stepID string, mo *connector.ManifestOp, response json.RawMessage) (any, *contract.ErrorBody) {
	var v any
	if len(response) > 0 {
		if err := json.Unmarshal(response, &v); err != nil {
			return nil, &contract.ErrorBody{Code: CodeJournalRecordInvalid, Message: "the recorded provider answer does not decode"}
		}
	}
	raw, _ := json.Marshal(sdk.ConnectorResponse{Status: 200, Body: v})
	return connectorAnswer(stepID, mo, raw)
}

// attempt sends the write once under its provider key, recorded before it
// leaves, and carries its answer to finality.
func (rc *runCtx) attempt(ctx context.Context, step *pkg.Step, local string, w *writeCall, prior int, inputs map[string]any, body *receipt.Body, cx map[string]any, res finalityResult) finalityResult {
	err := rc.e.Journal.BeginAttempt(durable(ctx), &journal.OperationKey{
		ProviderKey: w.providerKey, Operation: w.mo.Def.ID, BodyDigest: w.bodyDigest, Binding: w.binding,
		RunID: rc.rec.RunID, Address: local, PlanDigest: w.planDigest,
	}, prior)
	switch {
	case errors.Is(err, journal.ErrKeyContended):
		return finalityResult{status: contract.StepRefused, failure: &contract.ErrorBody{Code: CodeIdempotencyKeyInFlight, Message: fmt.Sprintf(
			"step %s: another call began sending %s under the same idempotency_key after this one checked it; one key means one intent, so nothing was sent twice: run again once that call settles, and it answers already_done or reconciles", step.ID, w.mo.Def.ID)}}
	case err != nil:
		return finalityResult{failure: contract.BodyOf(err), status: contract.StepFailed}
	}
	rc.e.hook("operation_attempt_recorded")
	sink := &answerSink{}
	out, failure, status := rc.execute(connector.WithPayment(withAnswerSink(ctx, sink), w.payment), step, local, inputs, body)
	switch {
	case failure == nil:
		ack, _ := json.Marshal(sink.body)
		if err := rc.e.Journal.SettleKey(durable(ctx), rc.rec.RunID, w.providerKey, journal.KeyAcknowledged, ack, ""); err != nil {
			return finalityResult{failure: contract.BodyOf(err), status: contract.StepFailed}
		}
		row := &journal.OperationKey{ProviderKey: w.providerKey, State: journal.KeyAcknowledged, Response: ack}
		return rc.confirm(ctx, step, local, w, row, out, cx, res)
	case status == contract.StepRefused || !ambiguousCodes[failure.Code]:
		// Refused, or it never reached its provider: nothing was done, and
		// the key may be tried again.
		if err := rc.e.Journal.SettleKey(durable(ctx), rc.rec.RunID, w.providerKey, journal.KeyRefused, nil, ""); err != nil {
			return finalityResult{failure: contract.BodyOf(err), status: contract.StepFailed}
		}
		return finalityResult{failure: failure, status: status}
	}
	// The request may have left and no usable answer was read (an
	// ambiguous commit, a crashed plugin): reconcile at once.
	cx["attempt_failure"] = failure
	row := &journal.OperationKey{ProviderKey: w.providerKey, State: journal.KeyAttempting, RunID: rc.rec.RunID, Address: local}
	if r, outcome := rc.reconcile(ctx, step, local, w, row, cx, res); outcome == reconcileSettled {
		return r
	}
	return rc.retryPending(step, local, w, row, cx, res, failure)
}

// confirm takes an acknowledged write to finality by its readbacks.
func (rc *runCtx) confirm(ctx context.Context, step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, out any, cx map[string]any, res finalityResult) finalityResult {
	if len(w.mo.Op.Readbacks) == 0 {
		cx["finality"] = connector.FinalityAcknowledged
		return rc.settleConfirmed(ctx, w, row, out, res)
	}
	verdict, evidence := rc.readBack(ctx, step, local, w, row.Response)
	cx["readback"] = evidence
	if verdict == readbackConfirmed {
		cx["finality"] = connector.FinalityConfirmed
		return rc.settleConfirmed(ctx, w, row, out, res)
	}
	return rc.retryPending(step, local, w, row, cx, res, &contract.ErrorBody{Code: "readback_unconfirmed", Message: "the provider acknowledged the write, but its readback did not confirm it"})
}

func (rc *runCtx) settleConfirmed(ctx context.Context, w *writeCall, row *journal.OperationKey, out any, res finalityResult) finalityResult {
	if err := rc.e.Journal.SettleKey(durable(ctx), rc.rec.RunID, w.providerKey, journal.KeyConfirmed, row.Response, ""); err != nil {
		return finalityResult{failure: contract.BodyOf(err), status: contract.StepFailed}
	}
	res.output, res.status = out, contract.StepSuccess
	return res
}

// What reconciling an unsettled attempt came to.
type reconcileOutcome int

const (
	// reconcileUnsettled: nothing custody holds settles it; a person is
	// asked at <step>/retry.
	reconcileUnsettled reconcileOutcome = iota
	// reconcileSettled: the result says how it ended (confirmed by
	// readback, or a person declined to send it again).
	reconcileSettled
	// reconcileResend: a person's {"retry": true} says the attempt did not
	// take effect: it goes again under the same key.
	reconcileResend
)

// reconcile settles an unsettled attempt from custody, with nobody asked:
// a readback that confirms the act settles it done.
func (rc *runCtx) reconcile(ctx context.Context, step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, cx map[string]any, res finalityResult) (finalityResult, reconcileOutcome) {
	if d := rc.decisions[local+"/retry"]; d != nil && !d.Used {
		if r, outcome := rc.retryDecided(ctx, step, local, w, row, cx, res, d); outcome != reconcileUnsettled {
			return r, outcome
		}
	}
	if len(w.mo.Op.Readbacks) == 0 {
		return res, reconcileUnsettled
	}
	verdict, evidence := rc.readBack(ctx, step, local, w, row.Response)
	cx["readback"] = evidence
	if verdict != readbackConfirmed {
		return res, reconcileUnsettled
	}
	cx["finality"], cx["reconciled"] = connector.FinalityConfirmed, true
	response := row.Response
	if len(response) == 0 {
		// No answer was read: the readback's is the write's evidence.
		response, _ = json.Marshal(evidence["answer"])
	}
	out, failure := answerOf(step.ID, w.mo, response)
	if failure != nil {
		return finalityResult{failure: failure, status: contract.StepFailed}, reconcileSettled
	}
	row.Response = response
	return rc.settleConfirmed(ctx, w, row, out, res), reconcileSettled
}

// unsettledAttempt says why a call found its key's attempt unsettled in
// custody: the request may have left, and what was recorded of it does not
// settle it.
func unsettledAttempt(step *pkg.Step, w *writeCall, row *journal.OperationKey) *contract.ErrorBody {
	what := "its request may have left and no answer was recorded"
	if row.State == journal.KeyAcknowledged {
		what = "the provider acknowledged it and no readback has confirmed it"
	}
	return &contract.ErrorBody{Code: "attempt_unsettled", Message: fmt.Sprintf(
		"step %s: custody holds an earlier attempt of %s under this key (run %s, %s): %s; nothing was sent again", step.ID, w.mo.Def.ID, row.RunID, row.Address, what)}
}

// ambiguousCodes are the failures after which a write's outcome is
// unknown: its request may have left and no usable answer was read. Any
// other failure happened before anything was sent.
var ambiguousCodes = map[string]bool{
	sdk.CodeAmbiguousCommit:       true,
	"provider_answer_invalid":     true,
	host.CodePluginCrashed:        true,
	host.CodePluginTimeout:        true,
	host.CodePluginTransport:      true,
	host.CodePluginOutputTooLarge: true,
	"capability_output_invalid":   true,
	// The provider answered, with a secret's field: the write may have
	// been done, so its readbacks settle it, never a resend.
	connector.CodeProviderOutputSecret: true,
}
