package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Readback verdicts.
const (
	readbackConfirmed = "confirmed" // every confirmed field holds the write's identity
	readbackAbsent    = "absent"    // the read answered, and the act is not there
	readbackUnknown   = "unknown"   // no usable answer
)

// readBack confirms a write by its declared readbacks: each calls a read
// operation of the same connector (through the same dispatch as any
// operation) and compares the fields it names with the values the write's
// identity says they must hold. ack is the write's recorded answer, or nil
// when none was read.
// The verdict is kept in the evidence, so a retry request can tell a
// person whether the act was found absent or nothing could be read.
func (c Writes) readBack(ctx context.Context, step *pkg.Step, local string, w *writeCall, ack json.RawMessage) (string, map[string]any) {
	verdict, evidence := c.readBackOnce(ctx, step, local, w, ack)
	evidence["verdict"] = verdict
	return verdict, evidence
}

func (c Writes) readBackOnce(ctx context.Context, step *pkg.Step, local string, w *writeCall, ack json.RawMessage) (string, map[string]any) {
	var answer any
	if len(ack) > 0 {
		_ = json.Unmarshal(ack, &answer)
	}
	resolve := func(v string) (any, bool) {
		switch {
		case v == "$key":
			return w.providerKey, true
		case strings.HasPrefix(v, "$$"):
			return v[1:], true
		case strings.HasPrefix(v, "$input."):
			x, ok := w.inputs[strings.TrimPrefix(v, "$input.")]
			return x, ok
		case strings.HasPrefix(v, "$response."):
			if answer == nil {
				return nil, false
			}
			return fieldAt(answer, strings.TrimPrefix(v, "$response."))
		}
		return v, true
	}
	evidence := map[string]any{}
	if answer == nil {
		// The write's answer was lost (the driver stopped, or the request
		// left and nothing usable came back). A readback that identifies
		// the act by $key or the write's inputs still can settle it; one
		// that needs the answer cannot run, and the retry request says so.
		var skipped []string
		for _, rb := range w.mo.Op.Readbacks {
			if rb.NeedsAnswer() {
				skipped = append(skipped, rb.Operation)
			}
		}
		if len(skipped) > 0 {
			evidence["skipped"] = skipped
		}
		if len(skipped) == len(w.mo.Op.Readbacks) {
			evidence["reason"] = "every readback of " + w.mo.Def.ID + " (" + strings.Join(skipped, ", ") + ") needs the write's answer ($response.*), and no answer was recorded; the connector declares no readback that finds the act by $key or its inputs alone"
			return readbackUnknown, evidence
		}
	}
	for i, rb := range w.mo.Op.Readbacks {
		if answer == nil && rb.NeedsAnswer() {
			continue
		}
		read := w.mo.Connector.Operation(rb.Operation)
		inputs := map[string]any{}
		for k, v := range rb.Inputs {
			x, ok := resolve(v)
			if !ok {
				evidence["reason"] = "readback " + rb.Operation + " needs " + v + ", which custody does not hold"
				return readbackUnknown, evidence
			}
			inputs[k] = x
		}
		synth := &pkg.Step{ID: step.ID, Kind: pkg.KindOperation, Operation: &pkg.OperationStep{
			Ref: w.mo.Connector.ID + "/" + read.Name, Connector: w.mo.Connector.ID, Operation: read.Name,
		}}
		scratch := receipt.Body{Runtime: &receipt.Runtime{}}
		// A readback is within the write's quote: it reserves nothing.
		out, failure, status := c.Run.Execute(CoveredByQuote(ctx), synth, local+"/readback/"+strconv.Itoa(i), inputs, &scratch)
		evidence["operation"] = synth.Operation.Ref
		if failure != nil {
			evidence["error"] = failure
			if status == contract.StepRefused && failure.Code == errcode.ProviderNotFound {
				if rb.FindsByKey() && !c.keyHonoured(ctx, w) {
					// Past the window the provider forgets the key: not
					// finding the act by it is no evidence it is absent.
					evidence["reason"] = "readback " + rb.Operation + " looks the act up by its key, and the provider honours a key only " + strconv.Itoa(w.mo.Op.Idempotency.WindowSeconds) + "s from its first send, which has passed; not finding it proves nothing"
					return readbackUnknown, evidence
				}
				return readbackAbsent, evidence
			}
			return readbackUnknown, evidence
		}
		evidence["answer"] = out
		for field, want := range rb.Confirms {
			expected, ok := resolve(want)
			if !ok {
				evidence["reason"] = "readback confirms " + field + " against " + want + ", which custody does not hold"
				return readbackUnknown, evidence
			}
			got, present := fieldAt(out, field)
			if !present || !sameJSON(got, expected) {
				evidence["mismatch"] = field
				return readbackAbsent, evidence
			}
		}
	}
	evidence["confirmed"] = true
	return readbackConfirmed, evidence
}

// fieldAt reads a dotted path of object fields.
func fieldAt(v any, path string) (any, bool) {
	for _, seg := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

func sameJSON(a, b any) bool {
	x, err1 := canon.Canonical(a)
	y, err2 := canon.Canonical(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// retryPending holds a write runx cannot confirm at <step>/retry: a
// person's decision, asked only when custody settles nothing. The request
// says whether sending again is safe (its provider deduplicates under the
// key) and binds the attempt it follows, so a decision answers only it.
func (c Writes) retryPending(step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, cx map[string]any, res Result, why *contract.ErrorBody) Result {
	attempts, firstSent := 1, ""
	if rec, err := c.Journal.OperationKeys().Get(context.Background(), w.providerKey); err == nil && rec != nil {
		attempts, firstSent = rec.Attempts, rec.FirstSentAt
	}
	address := local + "/retry"
	if w.reask != "" {
		why = &contract.ErrorBody{Code: errcode.RetryWindowClosed, Message: w.reask}
	}
	payload := map[string]any{
		"id":           c.Run.Address(address),
		"gate":         runstate.GateRetry,
		"operation":    w.mo.Def.ID,
		"provider_key": w.providerKey,
		"plan_digest":  w.planDigest,
		"attempts":     attempts,
		"custody":      row.State,
		"resend_safe":  resendSafe(w.mo.Op.Idempotency, firstSent, c.Run.Now()),
		"why":          why.Message,
		"decide":       `{"retry": true} sends it again under the same key (saying the earlier attempt did not take effect); {"retry": false} leaves it failed with retry_declined`,
	}
	if until, ok := resendSafeUntil(w.mo.Op.Idempotency, firstSent); ok {
		// When the provider stops deduplicating under the key: a decision
		// carried out after it is asked again (retryDecided).
		payload["resend_safe_until"] = until.Format(time.RFC3339)
	}
	if ev, ok := cx["readback"].(map[string]any); ok {
		// absent: the provider answered that the act is not there;
		// unknown: nothing usable was read, and readback_reason says why
		// when runx could not even ask (a readback that needs the lost
		// answer).
		payload["readback"] = ev["verdict"]
		if reason, ok := ev["reason"].(string); ok {
			payload["readback_reason"] = reason
		}
	}
	req, err := c.Run.BindRequest(step, address, contract.RequestApproval, payload)
	if err != nil {
		return Result{Failure: contract.BodyOf(err), Status: contract.StepFailed}
	}
	res.Wait, res.WaitLocal = &req, address
	return res
}

// retryDecided uses a person's decision on <step>/retry: true sends the
// write again under the same key, false leaves it failed.
func (c Writes) retryDecided(ctx context.Context, step *pkg.Step, local string, w *writeCall, row *journal.OperationKey, cx map[string]any, res Result, d *journal.Decision) (Result, reconcileOutcome) {
	var v struct {
		Retry *bool `json:"retry"`
	}
	if err := json.Unmarshal(d.Value, &v); err != nil || v.Retry == nil {
		return Result{Status: contract.StepFailed, Failure: &contract.ErrorBody{Code: errcode.ResumeEntryInvalid, Message: local + "/retry takes value {\"retry\": true} or {\"retry\": false}"}}, reconcileSettled
	}
	if err := c.Journal.Asks().UseDecision(durable(ctx), c.Run.RunID(), d.Address, nil); err != nil {
		return Result{Failure: contract.BodyOf(err), Status: contract.StepFailed}, reconcileSettled
	}
	d.Used = true
	if *v.Retry && c.answeredAsSafe(ctx, d) && !c.keyHonoured(ctx, w) {
		// The person was told the provider deduplicates under the key,
		// and by now it no longer does: their yes was to a safe resend,
		// which this no longer is. They are asked again, told so.
		w.reask = "step " + step.ID + ": {\"retry\": true} was given on a request that said resending " + w.mo.Def.ID + " was safe, and the provider's idempotency window (" + strconv.Itoa(w.mo.Op.Idempotency.WindowSeconds) + "s from the first send) has closed since: sent again now, the provider would not deduplicate it. Decide again; nothing was sent"
		return res, reconcileUnsettled
	}
	cx["retry_decision"] = map[string]any{"retry": *v.Retry, "request_digest": d.RequestDigest}
	if *v.Retry {
		return res, reconcileResend
	}
	return Result{Status: contract.StepFailed, Failure: &contract.ErrorBody{Code: errcode.RetryDeclined, Message: "step " + step.ID + ": a person declined to send " + w.mo.Def.ID + " again; custody keeps its attempt as it stands"}}, reconcileSettled
}

// answeredAsSafe reports whether the request decision d answered told the
// person a resend was safe.
func (c Writes) answeredAsSafe(ctx context.Context, d *journal.Decision) bool {
	reqs, err := c.Journal.Asks().Requests(durable(ctx), c.Run.RunID())
	if err != nil {
		return true // unknown: assume they were told so, and ask again
	}
	for _, r := range reqs {
		if r.RequestDigest != d.RequestDigest {
			continue
		}
		var p struct {
			ResendSafe bool `json:"resend_safe"`
		}
		return json.Unmarshal(r.Payload, &p) != nil || p.ResendSafe
	}
	return true
}

// AnswerSink carries a connector answer's raw provider body out of
// dispatch, for custody, without it reaching the receipt.
type AnswerSink struct{ Body any }

type answerSinkKey struct{}

func withAnswerSink(ctx context.Context, s *AnswerSink) context.Context {
	return context.WithValue(ctx, answerSinkKey{}, s)
}

// SinkOf is the sink a connector write's attempt carries, or nil.
func SinkOf(ctx context.Context) *AnswerSink {
	s, _ := ctx.Value(answerSinkKey{}).(*AnswerSink)
	return s
}

// InCustody reports whether a call is a connector write's attempt, whose
// custody (its provider key, acknowledgement and readbacks) settles what
// happened to it, so it is not claimed as a bare call is.
func InCustody(ctx context.Context) bool { return SinkOf(ctx) != nil }

// keyHonoured reports whether w's provider still honours its key: the
// operation declares idempotency and the key's first send is within the
// window. An operation that declares none sends no key, so a lookup by it
// is the connector's own affair and the window does not apply.
func (c Writes) keyHonoured(ctx context.Context, w *writeCall) bool {
	if w.mo.Op.Idempotency == nil {
		return true
	}
	rec, err := c.Journal.OperationKeys().Get(durable(ctx), w.providerKey)
	if err != nil || rec == nil {
		return false
	}
	return resendSafe(w.mo.Op.Idempotency, rec.FirstSentAt, c.Run.Now())
}

// resendSafe reports whether sending a write again under its key is safe:
// its provider deduplicates under the key (a declared idempotency header)
// and the key is still within the window the provider honours it, counted
// from when it was first sent.
func resendSafe(id *pkg.OperationIdempotency, firstSent string, now time.Time) bool {
	until, ok := resendSafeUntil(id, firstSent)
	return ok && now.Before(until)
}

// resendSafeUntil is when the provider stops honouring a key first sent at
// firstSent; ok is false when it deduplicates nothing or the send time is
// not known.
func resendSafeUntil(id *pkg.OperationIdempotency, firstSent string) (time.Time, bool) {
	if id == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, firstSent)
	if err != nil {
		return time.Time{}, false
	}
	return t.Add(time.Duration(id.WindowSeconds) * time.Second), true
}
