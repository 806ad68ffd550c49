package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The finality chain of a connector write: resolved authority and the
// effect's own approval are decided before this; then an idempotent attempt
// under a provider key recorded durably before anything leaves, the
// provider's acknowledgement, an identity-bound readback, and finality, or
// an explicit recovery state: an outcome runx cannot confirm stays pending
// at <step>/retry, and the next driver reconciles it from custody (a
// readback) before it ever sends again.

// Refusal and failure codes of the chain.

// Finality states a connector write's receipt records.
const (
	FinalityConfirmed    = "confirmed"    // read back by identity
	FinalityAcknowledged = "acknowledged" // the provider said so; the operation declares no readback
	FinalityAlreadyDone  = "already_done" // done before, under the same key
)

// writeCall is one connector write being carried to finality.
type writeCall struct {
	mo          *ManifestOp
	inputs      map[string]any // checked
	providerKey string
	bodyDigest  string
	binding     string
	planDigest  string
	payment     *Payment // what it moves, or nil
	// reask, when set, is why a person's earlier decision on this write's
	// retry is not carried out and they are asked again.
	reask string
}

// Writes carries a run's connector writes to finality: what it asks of the
// run, and the journal whose operation keys hold each write's custody.
type Writes struct {
	Run     Run
	Journal *journal.Journal
}

// Result is what the chain settled. Wait, when set, is the request the
// write waits on, bound at WaitLocal (the run's local address); Key names
// the provider key to mark done once the step's receipt is sealed.
type Result struct {
	Output    any
	Failure   *contract.ErrorBody
	Status    contract.StepStatus
	Wait      *contract.Request
	WaitLocal string
	Key       string
}

func durable(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

func (c Writes) prepareWrite(step *pkg.Step, mo *ManifestOp, inputs map[string]any) (*writeCall, *contract.ErrorBody) {
	checked, err := mo.Op.CheckInputs(inputs)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	callerKey, _ := inputs["idempotency_key"].(string)
	if callerKey == "" {
		return nil, &contract.ErrorBody{Code: errcode.IdempotencyKeyMissing, Message: "step " + step.ID + " writes through " + mo.Def.ID + " and names no idempotency_key; a write names one, which a retry reuses; nothing was sent"}
	}
	b := Binding(mo)
	r, err := sdk.Render(&b, checked)
	if err != nil {
		return nil, &contract.ErrorBody{Code: errcode.ConnectorRequestInvalid, Message: "operation " + mo.Def.ID + ": " + err.Error() + "; nothing was sent"}
	}
	pay, refusal := PaymentOf(mo.Op, checked)
	if refusal != nil {
		return nil, refusal
	}
	w := &writeCall{
		mo: mo, inputs: checked, providerKey: ProviderKey(mo, checked, callerKey),
		bodyDigest: RequestDigest(r),
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

// RequestDigest identifies a rendered request exactly.
func RequestDigest(r *sdk.RenderedRequest) string {
	var body any
	if r.Body != nil {
		body = json.RawMessage(r.Body)
	}
	return mustDigest(map[string]any{"method": r.Method, "url": r.URL, "body": body})
}

// Finality carries one connector write through the chain.
func (c Writes) Finality(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, body *receipt.Body, mo *ManifestOp) Result {
	w, refusal := c.prepareWrite(step, mo, inputs)
	if refusal != nil {
		return Result{Failure: refusal, Status: contract.StepRefused}
	}
	cx := body.Extra["connector"].(map[string]any)
	cx["provider_key"], cx["body_digest"], cx["plan_digest"] = w.providerKey, w.bodyDigest, w.planDigest
	if w.payment != nil {
		cx["payment"] = w.payment.Fields()
	}
	res := Result{Key: w.providerKey}
	row, err := c.Journal.OperationKeys().Get(durable(ctx), w.providerKey)
	if err != nil {
		return Result{Failure: contract.BodyOf(err), Status: contract.StepFailed}
	}
	c.Run.Hook("operation_key_read")
	if row != nil && row.State != journal.KeyRefused {
		if row.BodyDigest != w.bodyDigest {
			return Result{Status: contract.StepRefused, Failure: &contract.ErrorBody{Code: errcode.IdempotencyKeyConflict, Message: fmt.Sprintf(
				"step %s: its idempotency_key was already used for another request body of %s (run %s, %s); one key means one intent, so use a new key for a new body; nothing was sent", step.ID, mo.Def.ID, row.RunID, row.Address)}}
		}
		switch row.State {
		case journal.KeyDone, journal.KeyConfirmed:
			if row.Binding != w.binding {
				return Result{Status: contract.StepRefused, Failure: &contract.ErrorBody{Code: errcode.AlreadyDoneBindingChanged, Message: fmt.Sprintf(
					"step %s: the act under this key was done by %s as the connector stood then, and its connector or operation has changed since; nothing was sent", step.ID, orUnsealed(row.ReceiptID))}}
			}
			return c.doneBefore(step, local, w, row, cx, res)
		default:
			// Unsettled: reconcile from custody before anything is sent.
			// Only a person's {"retry": true} sends it again; with nothing
			// settling it and no decision, the call waits on its retry.
			r, outcome := c.reconcile(ctx, step, local, w, row, cx, res)
			switch outcome {
			case reconcileSettled:
				return r
			case reconcileUnsettled:
				return c.retryPending(step, local, w, row, cx, res, unsettledAttempt(step, w, row))
			}
		}
	}
	prior := 0
	if row != nil {
		prior = row.Attempts
	}
	return c.attempt(ctx, step, local, w, prior, inputs, body, cx, res)
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
func (c Writes) doneBefore(step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, cx map[string]any, res Result) Result {
	out, failure := c.answerOf(step.ID, w.mo, row.Response)
	if failure != nil {
		return Result{Failure: failure, Status: contract.StepFailed}
	}
	if row.RunID == c.Run.RunID() && row.Address == local {
		// This call's own act, confirmed before its driver stopped.
		cx["finality"] = FinalityConfirmed
	} else {
		cx["finality"] = FinalityAlreadyDone
		cx["already_done"] = map[string]any{"receipt_id": row.ReceiptID, "plan_digest": row.PlanDigest, "run_id": row.RunID}
		cx["settled_usd_micro"] = 0
		res.Key = "" // the act's receipt is the earlier one
	}
	res.Output, res.Status = out, contract.StepSuccess
	return res
}

// answerOf is the operation's output from a recorded provider answer.
func (c Writes) answerOf(stepID string, mo *ManifestOp, response json.RawMessage) (any, *contract.ErrorBody) {
	var v any
	if len(response) > 0 {
		if err := json.Unmarshal(response, &v); err != nil {
			return nil, &contract.ErrorBody{Code: errcode.JournalRecordInvalid, Message: "the recorded provider answer does not decode"}
		}
	}
	raw, _ := json.Marshal(sdk.ConnectorResponse{Status: 200, Body: v})
	return c.Run.Answer(stepID, mo, raw)
}

// attempt sends the write once under its provider key, recorded before it
// leaves, and carries its answer to finality.
func (c Writes) attempt(ctx context.Context, step *pkg.Step, local string, w *writeCall, prior int, inputs map[string]any, body *receipt.Body, cx map[string]any, res Result) Result {
	err := c.Journal.OperationKeys().BeginAttempt(durable(ctx), &journal.OperationKey{
		ProviderKey: w.providerKey, Operation: w.mo.Def.ID, BodyDigest: w.bodyDigest, Binding: w.binding,
		RunID: c.Run.RunID(), Address: local, PlanDigest: w.planDigest,
	}, prior)
	switch {
	case errors.Is(err, journal.ErrKeyContended):
		return Result{Status: contract.StepRefused, Failure: &contract.ErrorBody{Code: errcode.IdempotencyKeyInFlight, Message: fmt.Sprintf(
			"step %s: another call began sending %s under the same idempotency_key after this one checked it; one key means one intent, so nothing was sent twice: run again once that call settles, and it answers already_done or reconciles", step.ID, w.mo.Def.ID)}}
	case err != nil:
		return Result{Failure: contract.BodyOf(err), Status: contract.StepFailed}
	}
	c.Run.Hook("operation_attempt_recorded")
	sink := &AnswerSink{}
	out, failure, status := c.Run.Execute(WithPayment(withAnswerSink(ctx, sink), w.payment), step, local, inputs, body)
	switch {
	case failure == nil:
		ack, _ := json.Marshal(sink.Body)
		if err := c.Journal.OperationKeys().Settle(durable(ctx), c.Run.RunID(), w.providerKey, journal.KeyAcknowledged, ack, ""); err != nil {
			return Result{Failure: contract.BodyOf(err), Status: contract.StepFailed}
		}
		row := &journal.OperationKey{ProviderKey: w.providerKey, State: journal.KeyAcknowledged, Response: ack}
		return c.confirm(ctx, step, local, w, row, out, cx, res)
	case status == contract.StepRefused || !ambiguousCodes[failure.Code]:
		// Refused, or it never reached its provider: nothing was done, and
		// the key may be tried again.
		if err := c.Journal.OperationKeys().Settle(durable(ctx), c.Run.RunID(), w.providerKey, journal.KeyRefused, nil, ""); err != nil {
			return Result{Failure: contract.BodyOf(err), Status: contract.StepFailed}
		}
		return Result{Failure: failure, Status: status}
	}
	// The request may have left and no usable answer was read (an
	// ambiguous commit, a crashed plugin): reconcile at once.
	cx["attempt_failure"] = failure
	row := &journal.OperationKey{ProviderKey: w.providerKey, State: journal.KeyAttempting, RunID: c.Run.RunID(), Address: local}
	if r, outcome := c.reconcile(ctx, step, local, w, row, cx, res); outcome == reconcileSettled {
		return r
	}
	return c.retryPending(step, local, w, row, cx, res, failure)
}

// confirm takes an acknowledged write to finality by its readbacks.
func (c Writes) confirm(ctx context.Context, step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, out any, cx map[string]any, res Result) Result {
	if len(w.mo.Op.Readbacks) == 0 {
		cx["finality"] = FinalityAcknowledged
		return c.settleConfirmed(ctx, w, row, out, res)
	}
	verdict, evidence := c.readBack(ctx, step, local, w, row.Response)
	cx["readback"] = evidence
	if verdict == readbackConfirmed {
		cx["finality"] = FinalityConfirmed
		return c.settleConfirmed(ctx, w, row, out, res)
	}
	return c.retryPending(step, local, w, row, cx, res, &contract.ErrorBody{Code: errcode.ReadbackUnconfirmed, Message: "the provider acknowledged the write, but its readback did not confirm it"})
}

func (c Writes) settleConfirmed(ctx context.Context, w *writeCall, row *journal.OperationKey, out any, res Result) Result {
	if err := c.Journal.OperationKeys().Settle(durable(ctx), c.Run.RunID(), w.providerKey, journal.KeyConfirmed, row.Response, ""); err != nil {
		return Result{Failure: contract.BodyOf(err), Status: contract.StepFailed}
	}
	res.Output, res.Status = out, contract.StepSuccess
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
func (c Writes) reconcile(ctx context.Context, step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, cx map[string]any, res Result) (Result, reconcileOutcome) {
	if d := c.Run.Decision(local + "/retry"); d != nil && !d.Used {
		if r, outcome := c.retryDecided(ctx, step, local, w, row, cx, res, d); outcome != reconcileUnsettled {
			return r, outcome
		}
	}
	if len(w.mo.Op.Readbacks) == 0 {
		return res, reconcileUnsettled
	}
	verdict, evidence := c.readBack(ctx, step, local, w, row.Response)
	cx["readback"] = evidence
	if verdict != readbackConfirmed {
		return res, reconcileUnsettled
	}
	cx["finality"], cx["reconciled"] = FinalityConfirmed, true
	response := row.Response
	if len(response) == 0 {
		// No answer was read: the readback's is the write's evidence.
		response, _ = json.Marshal(evidence["answer"])
	}
	out, failure := c.answerOf(step.ID, w.mo, response)
	if failure != nil {
		return Result{Failure: failure, Status: contract.StepFailed}, reconcileSettled
	}
	row.Response = response
	return c.settleConfirmed(ctx, w, row, out, res), reconcileSettled
}

// unsettledAttempt says why a call found its key's attempt unsettled in
// custody: the request may have left, and what was recorded of it does not
// settle it.
func unsettledAttempt(step *pkg.Step, w *writeCall, row *journal.OperationKey) *contract.ErrorBody {
	what := "its request may have left and no answer was recorded"
	if row.State == journal.KeyAcknowledged {
		what = "the provider acknowledged it and no readback has confirmed it"
	}
	return &contract.ErrorBody{Code: errcode.AttemptUnsettled, Message: fmt.Sprintf(
		"step %s: custody holds an earlier attempt of %s under this key (run %s, %s): %s; nothing was sent again", step.ID, w.mo.Def.ID, row.RunID, row.Address, what)}
}

// ambiguousCodes are the failures after which a write's outcome is
// unknown: its request may have left and no usable answer was read. Any
// other failure happened before anything was sent.
var ambiguousCodes = map[errcode.Code]bool{
	errcode.AmbiguousCommit:         true,
	errcode.ProviderAnswerInvalid:   true,
	errcode.PluginCrashed:           true,
	errcode.PluginTimeout:           true,
	errcode.PluginTransportFailed:   true,
	errcode.PluginOutputTooLarge:    true,
	errcode.CapabilityOutputInvalid: true,
	// The provider answered, with a secret's field: the write may have
	// been done, so its readbacks settle it, never a resend.
	errcode.ProviderOutputSecretRefused: true,
}
