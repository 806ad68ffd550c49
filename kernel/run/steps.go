package run

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Execution classes recorded in step receipts: an honest account of what ran
// the step, never a confinement claim.
const (
	execNative      = "native"
	execModule      = "deterministic_module"
	execTrustedHost = "trusted_host_process"
	execGraph       = runstep.ExecGraph
	execHost        = "host"
)

func (rc *runCtx) runStep(ctx context.Context, step *pkg.Step, sc *scope) stepRun {
	if step.When != "" {
		run, err := rc.e.guard(step, sc)
		if err != nil {
			return rc.runner().SettleNow(ctx, step, step.ID, rc.Depth+1, contract.StepFailed, nil, contract.BodyOf(err), nil)
		}
		if !run {
			return rc.runner().SettleNow(ctx, step, step.ID, rc.Depth+1, contract.StepSkipped, nil, nil, nil)
		}
	}
	if step.ForEach != "" {
		return rc.fanOut(ctx, step, sc)
	}
	inputs, err := stepInputs(step, sc)
	if err != nil {
		return rc.runner().SettleNow(ctx, step, step.ID, rc.Depth+1, contract.StepFailed, nil, contract.BodyOf(err), nil)
	}
	return rc.unit(ctx, step, step.ID, inputs, rc.Depth+1)
}

// unit runs one step or fan-out item at a local address and receipt level.
func (rc *runCtx) unit(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, level int) stepRun {
	if level > TreeMaxDepth || !rc.Budget.Admit(unitReceipts(step)) {
		return stepRun{Settled: &settled{Status: contract.StepRefused, Failure: &contract.ErrorBody{
			Code:    errcode.ReceiptBudgetExceeded,
			Message: "step " + rc.Address(local) + " would take the receipt tree past " + rc.Budget.Bound() + ", so it was refused before it ran",
		}}}
	}
	switch step.Kind {
	case pkg.KindAgent, pkg.KindAsk:
		return rc.gate(ctx, step, local, inputs, level)
	case pkg.KindSkill:
		return rc.child(ctx, step, local, inputs, level)
	case pkg.KindScript:
		return rc.script(ctx, step, local, inputs, level)
	}
	if refusal := rc.reachGate(ctx, step, inputs); refusal != nil {
		body := rc.runner().StepBody(step, local)
		body.InputsDigest = mustDigest(inputs)
		r := rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, refusal, nil)
		return r
	}
	extra := map[string]any{}
	if refusal, term := gate.CallAuthority(ctx, gatePort{rc}, rc.rec.Authority, rc.Chain, step, inputs); refusal != nil || term != nil {
		if refusal != nil {
			body := rc.runner().StepBody(step, local)
			body.InputsDigest = mustDigest(inputs)
			body.Extra = map[string]any{"execution_term": term}
			return rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, refusal, nil)
		}
		if len(term) > 0 {
			extra["execution_term"] = term
		}
	}
	refusal := rc.money().AdmitQuote(ctx, step)
	if refusal == nil {
		refusal = rc.money().AdmitPayment(step, rc.manifests.Of(rc.pkg, step, rc.e.addedConnectors().With(rc.verified)), inputs)
	}
	if refusal != nil {
		body := rc.runner().StepBody(step, local)
		body.InputsDigest = mustDigest(inputs)
		return rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, refusal, nil)
	}
	if r := rc.floor(ctx, step, local, inputs, extra); r != nil {
		return *r
	}
	if r := rc.ownApproval(ctx, step, local, inputs, extra); r != nil {
		return *r
	}
	body := rc.runner().StepBody(step, local)
	mo := rc.manifests.Of(rc.pkg, step, rc.e.addedConnectors().With(rc.verified))
	if mo != nil {
		extra["connector"] = connector.Extra(mo, inputs)
	}
	if len(extra) > 0 {
		body.Extra = extra
	}
	body.InputsDigest = mustDigest(inputs)
	var output any
	var failure *contract.ErrorBody
	var status contract.StepStatus
	var keyDone string
	var wait *pending
	var err error
	if mo != nil && mo.Op.Verb == pkg.VerbWrite {
		// A connector write goes through the finality chain.
		fr := rc.writes().Finality(ctx, step, local, inputs, &body, mo)
		output, failure, status, keyDone = fr.Output, fr.Failure, fr.Status, fr.Key
		if fr.Wait != nil {
			wait = &pending{Request: *fr.Wait, RunID: rc.rec.RunID, Local: fr.WaitLocal}
		}
		rc.money().CostFromCustody(mo.Def, status, &body)
	} else {
		var w *runstep.Wait
		output, failure, status, w, err = runstep.ExecuteWithRetry(ctx, rc.runner(), step, local, &body, func() (any, *contract.ErrorBody, contract.StepStatus, bool) {
			out, failure, status := rc.execute(ctx, step, local, inputs, &body)
			return out, failure, status, connector.IsSpendRefusal(failure)
		})
		if w != nil && err == nil {
			wait, err = bindWait(rc, step, w)
		}
		if failure != nil && (status == contract.StepFailed || status == contract.StepRefused) && stopping(ctx) {
			// It failed while the run was being stopped (a wait on the
			// workspace lock cut short, a plugin closed under it): never
			// recorded as its outcome, the unit is left for the next
			// driver, which runs it again or waits at its retry.
			failure, status = &contract.ErrorBody{Code: errcode.CallInterrupted, Message: "step " + step.ID + ": the run was stopped while it ran (" + string(failure.Code) + "); a resume takes it up"}, contract.StepStopped
		}
	}
	if err != nil {
		return stepRun{Err: err}
	}
	if wait != nil {
		return stepRun{Waiting: []pending{*wait}}
	}
	if status == contract.StepStopped {
		if err := rc.recordStopped(ctx, step, local, failure); err != nil {
			return stepRun{Err: err}
		}
		return stepRun{Stopped: true}
	}
	if a, ok := outputArtifact(output); ok && failure == nil && status == contract.StepSuccess {
		withArtifacts(&body, a)
	}
	if failure == nil && step.ResultAs != "" {
		// result_as names the output the step's whole result becomes.
		output = map[string]any{step.ResultAs: output}
	}
	if failure == nil {
		var err error
		if output, err = checkOutputs(step.ID, step.Outputs, output); err != nil {
			failure, status = contract.BodyOf(err), contract.StepFailed
		}
	}
	r := rc.runner().Settle(ctx, step, local, body, status, output, failure, nil)
	if keyDone != "" && r.Settled != nil && r.Settled.Status == contract.StepSuccess {
		// The act's receipt is sealed: a later call under its key names it.
		if err := rc.e.Journal.OperationKeys().Settle(durable(ctx), rc.rec.RunID, keyDone, journal.KeyDone, nil, r.Settled.ReceiptID); err != nil {
			return stepRun{Err: err}
		}
	}
	return r
}

// unitReceipts is what a unit's seal needs from the budget before it runs:
// its own receipt, and for a skill step the child run's receipt too, which
// the child seals even when its own steps are refused. Admitting both at
// once means a run refused for receipt_budget_exceeded never seals past
// the bound, so its tree verifies.
func unitReceipts(step *pkg.Step) int {
	if step.Kind == pkg.KindSkill {
		return 2
	}
	return 1
}

func (rc *runCtx) execute(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, body *receipt.Body) (any, *contract.ErrorBody, contract.StepStatus) {
	var d *dispatch
	var err error
	var creds map[string]string
	var binding json.RawMessage
	switch step.Kind {
	case pkg.KindOperation:
		d, creds, binding, err = rc.operationDispatch(ctx, step, inputs)
	case pkg.KindModule:
		d, err = rc.moduleDispatch(ctx, step, local, inputs)
	case pkg.KindCommand:
		d, err = rc.commandDispatch(ctx, step, inputs)
	case pkg.KindTool:
		if tool := native.Lookup(step.Tool.Capability); tool != nil {
			body.Capability, body.Execution = step.Tool.Capability, execNative
			out, failure := tool.Answer(ctx, &native.Call{Run: nativeRun{rc}, Step: step}, inputs)
			if failure != nil {
				return nil, failure, contract.StepFailed
			}
			return out, nil, contract.StepSuccess
		}
		d = &dispatch{capability: step.Tool.Capability, execution: execNative, input: inputs, timeout: stepTimeout(step, 60*time.Second), interpret: decodeOutput}
	default:
		return nil, &contract.ErrorBody{Code: errcode.StepKindUnsupported, Message: "step " + step.ID + " is a " + string(step.Kind) + " step, which this runx does not run"}, contract.StepRefused
	}
	if err != nil {
		return nil, contract.BodyOf(err), contract.StepRefused
	}
	body.Capability, body.Execution = d.capability, d.execution
	if d.def == nil {
		d.def = definitionOf(ctx, rc.e.Host, d.capability)
	}
	if creds == nil && d.def != nil && len(d.def.Credentials) > 0 {
		if creds, err = connector.DeclaredCredentials(rc.e.CredentialResolver(), d.def); err != nil {
			return nil, contract.BodyOf(err), contract.StepRefused
		}
	}
	room, ok := runstep.AnswerRoom(rc.Budget, d.maxOutput)
	if !ok {
		return nil, runstep.AnswerTooLarge(rc.Budget, step.ID), contract.StepFailed
	}
	attempt, claimed := 1, false
	if class := runstep.ResendOf(d.def); !connector.InCustody(ctx) && (class == runstep.ResendUnsafe || class == runstep.ResendDeduplicated) {
		// It may act and nothing would make a second send harmless: it is
		// claimed before it leaves, or waits when an earlier claim of it
		// has no outcome (kernel/run/step/claim.go). One its plugin
		// deduplicates is sent again as it was, unless an earlier send
		// was answered effect_unconfirmed: then it waits at its retry too.
		var failure *contract.ErrorBody
		var status contract.StepStatus
		if attempt, failure, status = rc.claims.Claim(ctx, rc.runner(), step, local, d.capability, d.def); failure != nil {
			return nil, failure, status
		}
		if class == runstep.ResendUnsafe {
			rc.e.hook("call_claimed")
			claimed = true
		}
	}
	if d.def != nil && d.def.Recovers {
		if err := rc.e.noteRecovering(rc.rec.RunID, d.capability); err != nil {
			return nil, contract.BodyOf(err), contract.StepFailed
		}
	}
	hold, err := rc.holdWorkspace(ctx, lockModeOf(d.def))
	if err == nil && hold != nil {
		defer hold.Release()
		if binding == nil {
			binding = rc.calls().Binding()
		}
		withLockToken(d, hold, &binding)
	}
	if cancelled := errors.Is(context.Cause(ctx), ErrCallCancelled); cancelled {
		// Its host cancelled the call before it was dispatched (while it
		// waited on the workspace lock, say): it settles cancelled, having
		// done nothing.
		return nil, &contract.ErrorBody{Code: errcode.CallCancelled, Message: "step " + step.ID + ": its host cancelled the call before it started"}, contract.StepFailed
	}
	if err != nil {
		return nil, contract.BodyOf(err), contract.StepFailed
	}
	input, err := canon.Canonical(d.input)
	if err != nil {
		return nil, &contract.ErrorBody{Code: errcode.StepInputInvalid, Message: err.Error()}, contract.StepRefused
	}
	ch, refusal := rc.money().Reserve(ctx, step, local, d.def, d.capability)
	if refusal != nil {
		return nil, refusal, contract.StepRefused
	}
	// A step in flight runs to its end even when the run is asked to stop:
	// SIGTERM admits no further step but records the one it interrupted.
	// A process is the exception: it is terminated (stopWatch), and the
	// step is left for the next driver to run again.
	callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.timeout)
	defer cancel()
	if local == step.ID { // a fan-out's items report as they settle
		runstep.ReportProgress(ctx, Progress{Event: ProgressCallStarted, RunID: rc.rec.RunID, Address: rc.Address(local), Deadline: time.Now().Add(d.timeout)})
	}
	callContext := rc.calls().Context(local, gate.Effective(rc.Base, rc.method, step).Reach, binding, creds, rc.e.Clock())
	callContext.IdempotencyKey = d.idempotencyKey
	if attempt > 1 {
		// A person's {"retry": true}: a new attempt, under a call id of
		// its own, so a plugin keyed by the call does it again.
		callContext.Attempt = attempt
		callContext.CallID = rc.rec.RunID + "#" + local + "@" + strconv.Itoa(attempt)
	}
	stopSent := rc.stopWatch(ctx, d.def, d.capability, callContext.CallID)
	readCancelled := rc.cancelWatch(ctx, callCtx, cancel, d.def, d.capability, callContext.CallID)
	res, ref, err := rc.e.Host.Invoke(callCtx, &sdk.Call{
		Capability: d.capability,
		Input:      input,
		Context:    callContext,
	}, room)
	rc.e.hook("call_answered")
	unconfirmed, unconfirmedStatus, uerr := rc.claims.Answered(ctx, rc.runner(), step, local, d.capability, d.def, attempt, claimed, !connector.InCustody(ctx), res, err)
	if uerr != nil {
		return nil, contract.BodyOf(uerr), contract.StepFailed
	}
	rc.money().Settle(ctx, ch, connector.CallEnd(res, err), body)
	if over := runstep.ChargeAnswer(rc.Budget, step.ID, res, err, room < d.maxOutput || d.maxOutput <= 0 && room < sdk.MaxPayloadBytes); over != nil {
		return nil, over, contract.StepFailed
	}
	if stopSent() && err == nil && res.Status == sdk.StatusOK && wasStopped(res.Output) {
		return nil, &contract.ErrorBody{Code: errcode.ProcessStopped, Message: "step " + step.ID + ": the run was asked to stop, so its process group was terminated; a resume runs the step again"}, contract.StepStopped
	}
	if (err != nil || res.Status == sdk.StatusFailed) && stopping(ctx) && !connector.InCustody(ctx) {
		// The run was asked to stop, and the call failed: its plugin was
		// stopped under it (an interrupt closes every plugin) or could not
		// start any more. That is no outcome of the call's own, so it is
		// not recorded as one: the unit stays unsettled, and the next
		// driver runs it again or, if it may have acted, waits at its
		// retry (kernel/run/step/claim.go).
		return nil, &contract.ErrorBody{Code: errcode.CallInterrupted, Message: "step " + step.ID + ": the run was stopped while its call was in flight; a resume takes it up"}, contract.StepStopped
	}
	if err == nil && d.evidence != nil {
		d.evidence(res.Evidence)
	}
	if ref.Name != "" {
		body.Runtime.Plugin = &receipt.PluginRef{Name: ref.Name, Version: ref.Version, Protocol: ref.Protocol}
	}
	if readCancelled() {
		return nil, &contract.ErrorBody{Code: errcode.CallCancelled, Message: "step " + step.ID + ": its host cancelled the call, so the read in flight was stopped"}, contract.StepFailed
	}
	if err != nil {
		var he *host.Error
		if errors.As(err, &he) {
			if d.def != nil && d.def.Recovers && he.Code == errcode.PluginCrashed {
				// A recovering plugin died mid-change: a power cut here
				// takes the driver too (the crash hook), otherwise this
				// driver settles the begun change whole before it seals.
				rc.e.hook("fs_between_renames")
				token := ""
				if hold != nil {
					token = hold.Token()
				}
				if rerr := rc.e.recoverBegun(ctx, rc.rec.RunID, token); rerr != nil {
					return nil, contract.BodyOf(rerr), contract.StepFailed
				}
			}
			return nil, &contract.ErrorBody{Code: he.Code, Message: he.Message}, contract.StepFailed
		}
		return nil, &contract.ErrorBody{Code: errcode.PluginTransportFailed, Message: err.Error()}, contract.StepFailed
	}
	switch res.Status {
	case sdk.StatusOK:
	case sdk.StatusRefused:
		return nil, &contract.ErrorBody{Code: res.Code, Message: res.Message}, contract.StepRefused
	default:
		if unconfirmed != nil {
			// effect_unconfirmed: the unit waits at its retry.
			return nil, unconfirmed, unconfirmedStatus
		}
		return nil, &contract.ErrorBody{Code: res.Code, Message: res.Message}, contract.StepFailed
	}
	out, failure := d.interpret(res.Output, body)
	if failure != nil {
		return nil, failure, contract.StepFailed
	}
	return out, nil, contract.StepSuccess
}
