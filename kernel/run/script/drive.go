package script

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Driver drives the script steps of one run: the engine's port (Engine)
// and what the run states once for all its script steps.
type Driver struct {
	Engine     Engine
	RunID      string
	ProjectDir string
	Journal    Journal
	// Files are the package's JavaScript the worker is sent, Capability
	// the capability that runs scripts.
	Files      map[string]string
	Capability string
	// Limits are the worker's ceilings, Concurrency the most calls the run
	// carries out at once.
	Limits      Limits
	Concurrency int
	// Clock is the kernel's clock, which a wait's until is held to.
	Clock func() time.Time
}

// Drive drives a script step by suspend and replay: the worker runs the
// script until every path forward waits on a request not yet recorded; the
// kernel admits and carries those out (each a unit with its own receipt at
// <step>/<index>), records them, and replays the script with the longer
// record. A wait settles only on a drive at or after its until, at the time
// runx records.
func (d Driver) Drive(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, level int) Result {
	moduleInputs, inputRefs, err := KeepInputs(d.ProjectDir, d.RunID, local, inputs)
	if err != nil {
		return Result{Settle: &Settle{Status: contract.StepRefused, Failure: contract.BodyOf(err)}}
	}
	maxCalls := step.Script.MaxCalls
	if maxCalls <= 0 || maxCalls > MaxCalls {
		maxCalls = MaxCalls
	}
	// The worker keeps the suspended script under this drive's session, so
	// each invocation after the first sends only the requests settled since
	// (record_from: how many it holds); a worker without it answers
	// replay_needed and is sent the whole record.
	log := Log{RunID: d.RunID, Run: d.Engine, Journal: d.Journal}
	record, refs, err := log.Read(local)
	if err != nil {
		return Result{Err: err}
	}
	session := d.RunID + "#" + local
	held := -1 // the record entries the worker's session holds; -1: none
	for {
		send, from := record, 0
		if held >= 0 {
			send, from = record[held:], held
		}
		inputRefs.WithRecord(record)
		ans, failure, status, pluginRef := d.invoke(ctx, step, local, moduleInputs, send, from, session, maxCalls, 0)
		if failure == nil && ans.Status == AnswerDone && ans.OutputParts > 0 {
			ans, failure, status = JoinParts(ans, func(i int) (*Answer, *contract.ErrorBody, contract.StepStatus) {
				part, failure, status, _ := d.invoke(ctx, step, local, moduleInputs, []Recorded{}, 0, session, maxCalls, i)
				return part, failure, status
			})
		}
		if failure == nil && ans.Status == AnswerReplayNeeded {
			if held < 0 {
				return Result{Settle: &Settle{Status: contract.StepFailed, Failure: &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker asked for the whole record when it was sent the whole record"}}}
			}
			held = -1
			continue
		}
		held = len(record)
		if status == contract.StepStopped {
			return Result{Stopped: true}
		}
		// What the record holds so far: the skill calls the script started
		// (the step's max_fanout counts each with those it starts next)
		// and, once it is done, the artifacts it read.
		started := SkillCalls(record)
		if failure != nil || ans.Status == AnswerDone {
			ran := &Ran{Inputs: inputs, Plugin: pluginRef, Read: ReadArtifacts(record), Given: inputRefs.Artifacts()}
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
			return Result{Settle: &Settle{Status: status, Output: output, Failure: failure, Ran: ran, Refs: refs}}
		}
		if ctx.Err() != nil {
			return Result{Stopped: true}
		}
		res := d.carryOut(ctx, log, step, local, ans.Pending, level, started, inputRefs)
		if res.Err != nil || res.Stopped || len(res.Waits) > 0 || len(res.Waiting) > 0 || len(res.Refused) > 0 {
			return res
		}
		settled, settledRefs, err := log.Settled(ctx, local, ans.Pending)
		if err != nil {
			return Result{Err: err}
		}
		record, refs = append(record, settled...), append(refs, settledRefs...)
	}
}

// invoke sends the worker the script and the record it replays, and reads
// its answer.
func (d Driver) invoke(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, record []Recorded, recordFrom int, session string, maxCalls, outputPart int) (*Answer, *contract.ErrorBody, contract.StepStatus, *receipt.PluginRef) {
	if inputs == nil {
		inputs = map[string]any{}
	}
	limits := d.Limits
	req := map[string]any{
		"entry": step.Script.Module, "files": d.Files, "input": inputs, "environment": map[string]string{},
		"timeout_ms": limits.Timeout.Milliseconds(),
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
	room, ok := d.Engine.AnswerRoom(limits.MaxOutputBytes * 2)
	if !ok {
		return nil, d.Engine.AnswerTooLarge(local), contract.StepFailed, nil
	}
	callCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limits.Timeout+limits.HostGrace)
	defer cancel()
	res, pluginRef, err := d.Engine.Invoke(callCtx, &sdk.Call{Capability: d.Capability, Input: input, Context: sdk.Context{
		RunID: d.RunID, StepAddress: local, CallID: d.RunID + "#" + local + "@" + strconv.Itoa(recordFrom+len(record)), Attempt: 1, Clock: d.Clock(),
	}}, room)
	if (err != nil || res.Status == sdk.StatusFailed) && d.Engine.Stopping(ctx) {
		// Its worker was stopped under it: no outcome of the script's own
		// (the engine's execute).
		return nil, &contract.ErrorBody{Code: errcode.CallInterrupted, Message: "step " + step.ID + ": the run was stopped while its script ran; a resume takes it up"}, contract.StepStopped, pluginRef
	}
	if over := d.Engine.ChargeAnswer(local, res, err, room < limits.MaxOutputBytes*2); over != nil {
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
	var ans Answer
	if err := json.Unmarshal(res.Output, &ans); err != nil || !ans.Status.Known() {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker answered with an unreadable result"}, contract.StepFailed, pluginRef
	}
	return &ans, nil, contract.StepSuccess, pluginRef
}

// carryOut admits and runs a script's pending requests: calls at once up to
// the step's concurrency, waits settled from the run's clock or waited on.
func (d Driver) carryOut(ctx context.Context, log Log, step *pkg.Step, local string, asked []Pending, level, startedSkills int, refs *Refs) Result {
	var waits []Wait
	var waiting []Waiting
	var refused []contract.RefusedAnswer
	var calls []Pending
	now := d.Clock()
	for _, p := range asked {
		address := fmt.Sprintf("%s/%d", local, p.Index)
		if p.Kind == KindRead {
			if err := log.ReadRef(ctx, step.ID, address, p, refs); err != nil {
				return Result{Err: err}
			}
			continue
		}
		if p.Kind != KindWait {
			calls = append(calls, p)
			continue
		}
		if now.UnixMilli() >= p.Until {
			if err := log.Wait(ctx, step.ID, address, p, now); err != nil {
				return Result{Err: err}
			}
			continue
		}
		waits = append(waits, Wait{Local: address, Until: p.Until})
	}
	limit := step.Script.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	limit = min(limit, d.Concurrency)
	results := make([]Result, len(calls))
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
			results[i] = d.call(ctx, step, fmt.Sprintf("%s/%d", local, p.Index), p, level+1, ordinal, refs)
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.Err != nil {
			return r
		}
		if r.Stopped {
			return Result{Stopped: true}
		}
		waiting, refused = append(waiting, r.Waiting...), append(refused, r.Refused...)
	}
	return Result{Waits: waits, Waiting: waiting, Refused: refused}
}

// call admits one call against the step's listed calls and carries it
// out as a unit of its own, or settles it refused.
func (d Driver) call(ctx context.Context, step *pkg.Step, address string, p Pending, level, skillOrdinal int, refs *Refs) Result {
	digest := canon.DigestRaw(p.Input)
	callStep, input, given, refused := d.admit(step, p, digest, skillOrdinal, refs)
	if refused != nil {
		return d.Engine.Refuse(ctx, step, address, level, given, refused)
	}
	r := d.Engine.Unit(ctx, callStep, address, input, given, level)
	if r.Settled == nil || r.Err != nil {
		return r
	}
	// Record what was asked beside what it returned, so a replay can be held
	// to asking the same thing.
	s := r.Settled
	wrapped := map[string]any{"kind": p.Kind, "tool": p.Tool, "input_digest": digest, "output": s.Output}
	raw, err := json.Marshal(wrapped)
	if err != nil {
		return Result{Err: err}
	}
	rec := &journal.Step{RunID: d.RunID, Address: address, StepID: step.ID, Status: s.Status, ReceiptID: s.ReceiptID, Output: raw}
	if s.Status != contract.StepSuccess {
		s.Failure.Detail = map[string]any{"tool": p.Tool, "input_digest": digest}
		rec.Output = nil
		if rec.Error, err = json.Marshal(s.Failure); err != nil {
			return Result{Err: err}
		}
	}
	if rec.ChildRef, err = json.Marshal(s.Ref); err != nil {
		return Result{Err: err}
	}
	return Result{Settled: s, Err: d.Journal.RecordStep(context.WithoutCancel(ctx), rec)}
}

// admit holds one call to what the step lists and its authority allows:
// the step it runs as and its input, or the refusal (input_digest: what
// the script asked). A reference the step gave its script reaches the
// callee as its content; the record keeps the digest of what the script
// asked, and the call's receipt, refused or run, names each artifact
// (given), labelled with where the input held it.
func (d Driver) admit(step *pkg.Step, p Pending, digest string, skillOrdinal int, refs *Refs) (*pkg.Step, map[string]any, []receipt.Artifact, *contract.ErrorBody) {
	var input map[string]any
	if err := json.Unmarshal(p.Input, &input); err != nil {
		return nil, nil, nil, &contract.ErrorBody{Code: errcode.CallInputInvalid, Message: "the script's call input is not a JSON object", Detail: map[string]any{"tool": p.Tool, "input_digest": digest}}
	}
	substituted, given := refs.SubstituteNamed(input)
	input, _ = substituted.(map[string]any)
	callStep, err := CallStep(step, p)
	if err != nil {
		return nil, nil, given, &contract.ErrorBody{Code: errcode.CallNotAllowed, Message: err.Error(), Detail: map[string]any{"tool": p.Tool, "input_digest": digest}}
	}
	if skillOrdinal > 0 {
		if err := d.Engine.ChildLimits(step, skillOrdinal); err != nil {
			body := contract.BodyOf(err)
			body.Detail = map[string]any{"tool": p.Tool, "input_digest": digest}
			return nil, nil, given, body
		}
	}
	return callStep, input, given, nil
}
