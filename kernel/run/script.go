package run

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/script"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// script drives a script step by suspend and replay: the worker runs the
// script until every path forward waits on a request not yet recorded; the
// kernel admits and carries those out (each a unit with its own receipt at
// <step>/<index>), records them, and replays the script with the longer
// record. A wait settles only on a drive at or after its until, at the time
// runx records.
func (rc *runCtx) script(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, level int) stepRun {
	files, err := rc.modules.load()
	if err != nil {
		return rc.settleNow(ctx, step, local, level, contract.StepRefused, nil, contract.BodyOf(err), nil)
	}
	capability, err := rc.e.roleCapability(ctx, sdk.RoleScript)
	if err != nil {
		return rc.settleNow(ctx, step, local, level, contract.StepRefused, nil, contract.BodyOf(err), nil)
	}
	moduleInputs, inputRefs, err := script.KeepInputs(rc.e.ProjectDir, rc.rec.RunID, local, inputs)
	if err != nil {
		return rc.settleNow(ctx, step, local, level, contract.StepRefused, nil, contract.BodyOf(err), nil)
	}
	maxCalls := step.Script.MaxCalls
	if maxCalls <= 0 || maxCalls > script.MaxCalls {
		maxCalls = script.MaxCalls
	}
	// The worker keeps the suspended script under this drive's session, so
	// each invocation after the first sends only the requests settled since
	// (record_from: how many it holds); a worker without it answers
	// replay_needed and is sent the whole record.
	log := script.Log{RunID: rc.rec.RunID, Run: scriptPort{rc}, Journal: rc.e.Journal}
	record, refs, err := log.Read(local)
	if err != nil {
		return stepRun{err: err}
	}
	session := rc.rec.RunID + "#" + local
	held := -1 // the record entries the worker's session holds; -1: none
	for {
		send, from := record, 0
		if held >= 0 {
			send, from = record[held:], held
		}
		inputRefs.WithRecord(record)
		ans, failure, status, pluginRef := rc.invokeScript(ctx, capability, step, local, moduleInputs, files, send, from, session, maxCalls, 0)
		if failure == nil && ans.Status == script.AnswerDone && ans.OutputParts > 0 {
			ans, failure, status = script.JoinParts(ans, func(i int) (*script.Answer, *contract.ErrorBody, contract.StepStatus) {
				part, failure, status, _ := rc.invokeScript(ctx, capability, step, local, moduleInputs, files, []script.Recorded{}, 0, session, maxCalls, i)
				return part, failure, status
			})
		}
		if failure == nil && ans.Status == script.AnswerReplayNeeded {
			if held < 0 {
				return rc.settleNow(ctx, step, local, level, contract.StepFailed, nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker asked for the whole record when it was sent the whole record"}, nil)
			}
			held = -1
			continue
		}
		held = len(record)
		if status == contract.StepStopped {
			return stepRun{stopped: true}
		}
		if failure != nil || ans.Status == script.AnswerDone {
			body := rc.stepBody(step, local)
			body.Capability, body.Execution, body.InputsDigest = capability, execModule, mustDigest(inputs)
			body.Runtime.Plugin = pluginRef
			withArtifacts(&body, inputRefs.Artifacts()...)
			withArtifacts(&body, script.ReadArtifacts(record)...)
			var output any
			if failure == nil && len(ans.Output) > 0 && json.Unmarshal(ans.Output, &output) != nil {
				failure, status = &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker answered with an output that is not JSON"}, contract.StepFailed
			}
			if failure == nil {
				output, failure = inputRefs.ResolveOutput(output)
				if failure != nil {
					status = contract.StepFailed
				}
			}
			if failure == nil {
				var err error
				if output, err = checkOutputs(step.ID, step.Outputs, output); err != nil {
					failure, status = contract.BodyOf(err), contract.StepFailed
				}
			}
			return rc.settle(ctx, step, local, body, status, output, failure, refs)
		}
		if ctx.Err() != nil {
			return stepRun{stopped: true}
		}
		res := rc.carryOut(ctx, log, step, local, ans.Pending, level, script.SkillCalls(record), inputRefs)
		if res.err != nil || res.stopped || len(res.waiting) > 0 || len(res.refused) > 0 {
			return res
		}
		settled, settledRefs, err := log.Settled(ctx, local, ans.Pending)
		if err != nil {
			return stepRun{err: err}
		}
		record, refs = append(record, settled...), append(refs, settledRefs...)
	}
}

func (rc *runCtx) invokeScript(ctx context.Context, capability string, step *pkg.Step, local string, inputs map[string]any, files map[string]string, record []script.Recorded, recordFrom int, session string, maxCalls, outputPart int) (*script.Answer, *contract.ErrorBody, contract.StepStatus, *receipt.PluginRef) {
	req := map[string]any{
		"entry": step.Script.Module, "files": files, "input": orEmpty(inputs), "environment": map[string]string{},
		"timeout_ms": ModuleDefaultTimeout.Milliseconds(),
		"record":     record, "max_calls": maxCalls, "session": session,
	}
	if recordFrom > 0 {
		req["record_from"] = recordFrom
	}
	if outputPart > 0 {
		req["output_part"] = outputPart
	}
	input, err := canon.Canonical(req)
	if err != nil {
		return nil, contract.BodyOf(err), contract.StepFailed, nil
	}
	room, ok := runstep.AnswerRoom(rc.Budget, moduleMaxOutputBytes*2)
	if !ok {
		return nil, runstep.AnswerTooLarge(rc.Budget, local), contract.StepFailed, nil
	}
	callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ModuleDefaultTimeout+moduleHostGrace)
	defer cancel()
	res, ref, err := rc.e.Host.Invoke(callCtx, &sdk.Call{Capability: capability, Input: input, Context: sdk.Context{
		RunID: rc.rec.RunID, StepAddress: local, CallID: rc.rec.RunID + "#" + local + "@" + strconv.Itoa(recordFrom+len(record)), Attempt: 1, Clock: rc.e.Clock(),
	}}, room)
	var pluginRef *receipt.PluginRef
	if ref.Name != "" {
		pluginRef = &receipt.PluginRef{Name: ref.Name, Version: ref.Version, Protocol: ref.Protocol}
	}
	if (err != nil || res.Status == sdk.StatusFailed) && stopping(ctx) {
		// Its worker was stopped under it: no outcome of the script's own
		// (steps.go, execute).
		return nil, &contract.ErrorBody{Code: errcode.CallInterrupted, Message: "step " + step.ID + ": the run was stopped while its script ran; a resume takes it up"}, contract.StepStopped, pluginRef
	}
	if over := runstep.ChargeAnswer(rc.Budget, local, res, err, room < moduleMaxOutputBytes*2); over != nil {
		return nil, over, contract.StepFailed, pluginRef
	}
	if err != nil {
		return nil, &contract.ErrorBody{Code: contract.CodeOf(err), Message: err.Error()}, contract.StepFailed, pluginRef
	}
	if res.Status != sdk.StatusOK {
		status := contract.StepFailed
		if res.Status == sdk.StatusRefused {
			status = contract.StepRefused
		}
		return nil, &contract.ErrorBody{Code: res.Code, Message: res.Message}, status, pluginRef
	}
	var ans script.Answer
	if err := json.Unmarshal(res.Output, &ans); err != nil || !ans.Status.Known() {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker answered with an unreadable result"}, contract.StepFailed, pluginRef
	}
	return &ans, nil, contract.StepSuccess, pluginRef
}

// carryOut admits and runs a script's pending requests: calls at once up to
// the step's concurrency, waits settled from the run's clock or waited on.
func (rc *runCtx) carryOut(ctx context.Context, log script.Log, step *pkg.Step, local string, asked []script.Pending, level, startedSkills int, refs *script.Refs) stepRun {
	var waiting []pending
	var refused []contract.RefusedAnswer
	var calls []script.Pending
	now := rc.e.Clock()
	for _, p := range asked {
		address := fmt.Sprintf("%s/%d", local, p.Index)
		if p.Kind == script.KindRead {
			if err := log.ReadRef(ctx, step.ID, address, p, refs); err != nil {
				return stepRun{err: err}
			}
			continue
		}
		if p.Kind != script.KindWait {
			calls = append(calls, p)
			continue
		}
		if now.UnixMilli() >= p.Until {
			if err := log.Wait(ctx, step.ID, address, p, now); err != nil {
				return stepRun{err: err}
			}
			continue
		}
		req, err := rc.bindRequest(step, address, contract.RequestWait, map[string]any{"id": rc.Address(address), "until": p.Until})
		if err != nil {
			return stepRun{err: err}
		}
		waiting = append(waiting, pending{Request: req, runID: rc.rec.RunID, local: address})
	}
	limit := step.Script.Concurrency
	if limit <= 0 {
		limit = script.DefaultConcurrency
	}
	limit = min(limit, rc.e.concurrencyFor(0))
	results := make([]stepRun, len(calls))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, p := range calls {
		// A skill call starts a child run: the step's max_fanout counts each,
		// in the order the script asked, with those it already started.
		ordinal := 0
		if strings.HasPrefix(p.Tool, "skill:") {
			startedSkills++
			ordinal = startedSkills
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = rc.scriptCall(ctx, step, fmt.Sprintf("%s/%d", local, p.Index), p, level+1, ordinal, refs)
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return r
		}
		if r.stopped {
			return stepRun{stopped: true}
		}
		waiting, refused = append(waiting, r.waiting...), append(refused, r.refused...)
	}
	return stepRun{waiting: waiting, refused: refused}
}

// scriptCall admits one call against the step's listed calls and carries it
// out as a unit of its own.
func (rc *runCtx) scriptCall(ctx context.Context, step *pkg.Step, address string, p script.Pending, level, skillOrdinal int, refs *script.Refs) stepRun {
	var input map[string]any
	digest := canon.DigestRaw(p.Input)
	if err := json.Unmarshal(p.Input, &input); err != nil {
		return rc.settleNow(ctx, step, address, level, contract.StepRefused, nil, &contract.ErrorBody{Code: errcode.CallInputInvalid, Message: "the script's call input is not a JSON object", Detail: map[string]any{"tool": p.Tool, "input_digest": digest}}, nil)
	}
	// A reference the step gave its script reaches the callee as its
	// content; the record keeps the digest of what the script asked, and
	// the call's receipt names each artifact, labelled with where the input
	// held it.
	substituted, given := refs.SubstituteNamed(input)
	input, _ = substituted.(map[string]any)
	rc.giveArtifacts(address, given)
	call, err := script.CallStep(step, p)
	if err != nil {
		return rc.settleNow(ctx, step, address, level, contract.StepRefused, nil, &contract.ErrorBody{Code: errcode.CallNotAllowed, Message: err.Error(), Detail: map[string]any{"tool": p.Tool, "input_digest": digest}}, nil)
	}
	if skillOrdinal > 0 {
		if err := rc.childLimits(step, skillOrdinal); err != nil {
			body := contract.BodyOf(err)
			body.Detail = map[string]any{"tool": p.Tool, "input_digest": digest}
			return rc.settleNow(ctx, step, address, level, contract.StepRefused, nil, body, nil)
		}
	}
	r := rc.unit(ctx, call, address, input, level)
	if r.settled == nil || r.err != nil {
		return r
	}
	// Record what was asked beside what it returned, so a replay can be held
	// to asking the same thing.
	s := r.settled
	wrapped := map[string]any{"kind": p.Kind, "tool": p.Tool, "input_digest": digest, "output": s.output}
	raw, err := json.Marshal(wrapped)
	if err != nil {
		return stepRun{err: err}
	}
	rec := &journal.Step{RunID: rc.rec.RunID, Address: address, StepID: step.ID, Status: s.status, ReceiptID: s.receiptID, Output: raw}
	if s.status != contract.StepSuccess {
		s.failure.Detail = map[string]any{"tool": p.Tool, "input_digest": digest}
		rec.Output = nil
		if rec.Error, err = json.Marshal(s.failure); err != nil {
			return stepRun{err: err}
		}
	}
	if rec.ChildRef, err = json.Marshal(s.ref); err != nil {
		return stepRun{err: err}
	}
	return stepRun{settled: s, err: rc.e.Journal.RecordStep(durable(ctx), rec)}
}
