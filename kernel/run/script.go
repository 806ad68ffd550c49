package run

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/script"
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
	record, refs, err := rc.scriptRecord(local)
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
		if failure == nil && ans.Status == "done" && ans.OutputParts > 0 {
			ans, failure, status = rc.scriptOutputParts(ctx, capability, step, local, moduleInputs, files, session, maxCalls, ans)
		}
		if failure == nil && ans.Status == "replay_needed" {
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
		if failure != nil || ans.Status == "done" {
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
		res := rc.carryOut(ctx, step, local, ans.Pending, level, script.SkillCalls(record), inputRefs)
		if res.err != nil || res.stopped || len(res.waiting) > 0 || len(res.refused) > 0 {
			return res
		}
		settled, settledRefs, err := rc.scriptSettled(ctx, local, ans.Pending)
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
	room, ok := rc.answerRoom(moduleMaxOutputBytes * 2)
	if !ok {
		return nil, rc.answerTooLarge(local), contract.StepFailed, nil
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
	if over := rc.chargeAnswer(local, res, err, room < moduleMaxOutputBytes*2); over != nil {
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
	if err := json.Unmarshal(res.Output, &ans); err != nil || (ans.Status != "done" && ans.Status != "suspended" && ans.Status != "replay_needed" && ans.Status != "part") {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker answered with an unreadable result"}, contract.StepFailed, pluginRef
	}
	return &ans, nil, contract.StepSuccess, pluginRef
}

// scriptOutputParts takes a script's output past one answer of the worker
// in its parts (the first came with the answer), joins them and holds the
// whole to the byte count and digest the worker stated. A worker that no
// longer holds the parts answers replay_needed, which the caller handles.
func (rc *runCtx) scriptOutputParts(ctx context.Context, capability string, step *pkg.Step, local string, inputs map[string]any, files map[string]string, session string, maxCalls int, first *script.Answer) (*script.Answer, *contract.ErrorBody, contract.StepStatus) {
	invalid := func(why string) (*script.Answer, *contract.ErrorBody, contract.StepStatus) {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker's output in parts " + why}, contract.StepFailed
	}
	if first.Part == nil || first.OutputParts < 2 || first.OutputBytes <= 0 {
		return invalid("is announced without its first part")
	}
	out := make([]byte, 0, first.OutputBytes)
	out = append(out, *first.Part...)
	for i := 1; i < first.OutputParts; i++ {
		ans, failure, status, _ := rc.invokeScript(ctx, capability, step, local, inputs, files, []script.Recorded{}, 0, session, maxCalls, i)
		if failure != nil {
			return nil, failure, status
		}
		if ans.Status == "replay_needed" {
			return ans, nil, contract.StepSuccess
		}
		if ans.Status != "part" || ans.Part == nil {
			return invalid("answered part " + strconv.Itoa(i) + " with something else")
		}
		if len(out)+len(*ans.Part) > first.OutputBytes {
			return invalid("holds more bytes than it stated")
		}
		out = append(out, *ans.Part...)
	}
	if len(out) != first.OutputBytes || canon.DigestBytes(out) != first.OutputDigest {
		return invalid("does not join into the bytes and digest it stated")
	}
	return &script.Answer{Status: "done", Output: out}, nil, contract.StepSuccess
}

// scriptRecord reads a script's settled requests back from the journal, in
// index order, and the receipts its step commits.
func (rc *runCtx) scriptRecord(local string) ([]script.Recorded, []receipt.ChildRef, error) {
	steps, err := rc.e.Journal.Steps(context.Background(), rc.rec.RunID)
	if err != nil {
		return nil, nil, err
	}
	type entry struct {
		idx int
		rec *journal.Step
	}
	var entries []entry
	prefix := local + "/"
	for addr, s := range steps {
		if rest, ok := strings.CutPrefix(addr, prefix); ok && !strings.ContainsAny(rest, "/[#") {
			if i, err := strconv.Atoi(rest); err == nil {
				entries = append(entries, entry{i, s})
			}
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.idx - b.idx })
	record := make([]script.Recorded, 0, len(entries))
	var refs []receipt.ChildRef
	for _, e := range entries {
		r, ref, err := scriptRecordedOf(e.idx, e.rec)
		if err != nil {
			return nil, nil, err
		}
		record = append(record, r)
		if ref != nil {
			refs = append(refs, *ref)
		}
	}
	return record, refs, nil
}

// scriptSettled reads back the requests a drive just settled, by their
// addresses only, in index order: the record grows by them without the
// whole run being read again.
func (rc *runCtx) scriptSettled(ctx context.Context, local string, asked []script.Pending) ([]script.Recorded, []receipt.ChildRef, error) {
	addresses := make([]string, len(asked))
	for i, p := range asked {
		addresses[i] = fmt.Sprintf("%s/%d", local, p.Index)
	}
	steps, err := rc.e.Journal.StepsAt(ctx, rc.rec.RunID, addresses)
	if err != nil {
		return nil, nil, err
	}
	var record []script.Recorded
	var refs []receipt.ChildRef
	for i, p := range asked {
		s, ok := steps[addresses[i]]
		if !ok {
			return nil, nil, contract.Errorf(errcode.JournalRecordInvalid, "the journal holds no record of request %s the drive settled", addresses[i])
		}
		r, ref, err := scriptRecordedOf(p.Index, s)
		if err != nil {
			return nil, nil, err
		}
		record = append(record, r)
		if ref != nil {
			refs = append(refs, *ref)
		}
	}
	slices.SortFunc(record, func(a, b script.Recorded) int { return a.Index - b.Index })
	return record, refs, nil
}

// scriptRecordedOf is one settled request as the worker replays it, and the
// receipt it committed, if any.
func scriptRecordedOf(idx int, rec *journal.Step) (script.Recorded, *receipt.ChildRef, error) {
	var meta struct {
		Kind        string            `json:"kind"`
		Tool        string            `json:"tool"`
		InputDigest string            `json:"input_digest"`
		SettledAt   int64             `json:"settled_at"`
		Output      json.RawMessage   `json:"output"`
		Artifact    *receipt.Artifact `json:"artifact"`
	}
	s, err := settledOf(rec)
	if err != nil {
		return script.Recorded{}, nil, err
	}
	r := script.Recorded{Index: idx}
	if len(rec.Output) > 0 {
		if err := json.Unmarshal(rec.Output, &meta); err != nil {
			return script.Recorded{}, nil, contract.Errorf(errcode.JournalRecordInvalid, "the journal's record of call %s does not decode: %v", rec.StepID, err)
		}
	}
	r.Kind, r.Tool, r.InputDigest, r.SettledAt, r.Artifact = meta.Kind, meta.Tool, meta.InputDigest, meta.SettledAt, meta.Artifact
	if r.Kind == "" { // a call or read that failed records its request in its error's detail
		r.Kind, r.Tool, r.InputDigest = script.FailedRequest(s.failure)
	}
	if s.status == contract.StepSuccess {
		r.Output = meta.Output
	} else if s.failure != nil {
		r.Error = &script.Error{Code: s.failure.Code, Message: s.failure.Message}
	}
	if s.receiptID != "" {
		return r, &s.ref, nil
	}
	return r, nil, nil
}

// carryOut admits and runs a script's pending requests: calls at once up to
// the step's concurrency, waits settled from the run's clock or waited on.
func (rc *runCtx) carryOut(ctx context.Context, step *pkg.Step, local string, asked []script.Pending, level, startedSkills int, refs *script.Refs) stepRun {
	var waiting []pending
	var refused []contract.RefusedAnswer
	var calls []script.Pending
	now := rc.e.Clock()
	for _, p := range asked {
		address := fmt.Sprintf("%s/%d", local, p.Index)
		if p.Kind == "read" {
			if err := rc.scriptRead(ctx, step, address, p, refs); err != nil {
				return stepRun{err: err}
			}
			continue
		}
		if p.Kind != "wait" {
			calls = append(calls, p)
			continue
		}
		if now.UnixMilli() >= p.Until {
			if err := rc.recordWait(ctx, step, address, p, now); err != nil {
				return stepRun{err: err}
			}
			continue
		}
		req, err := rc.bindRequest(step, address, contract.RequestWait, map[string]any{"id": rc.address(address), "until": p.Until})
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

// recordWait settles a wait at the time runx records.
func (rc *runCtx) recordWait(ctx context.Context, step *pkg.Step, address string, p script.Pending, now time.Time) error {
	out, err := json.Marshal(map[string]any{"kind": "wait", "settled_at": now.UnixMilli(), "until": p.Until})
	if err != nil {
		return err
	}
	return rc.e.Journal.RecordStep(durable(ctx), &journal.Step{RunID: rc.rec.RunID, Address: address, StepID: step.ID, Status: contract.StepSuccess, Output: out})
}

// scriptCall admits one call against the step's listed calls and carries it
// out as a unit of its own.
func (rc *runCtx) scriptCall(ctx context.Context, step *pkg.Step, address string, p script.Pending, level, skillOrdinal int, refs *script.Refs) stepRun {
	var input map[string]any
	digest := mustDigestRaw(p.Input)
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

// scriptRead settles a ctx.read of a reference: the content of the
// artifact the step gave by that reference, read back from the artifact
// store and held to its digest and size, recorded beside what was asked so
// a replay is held to asking the same. A reference the step never gave,
// or an artifact whose content changed, rejects the read. A read runs
// nothing and commits no receipt of its own: the step's receipt names the
// artifacts it gave.
func (rc *runCtx) scriptRead(ctx context.Context, step *pkg.Step, address string, p script.Pending, refs *script.Refs) error {
	digest := mustDigestRaw(p.Input)
	var doc struct {
		Ref string `json:"$ref"`
	}
	_ = json.Unmarshal(p.Input, &doc)
	rec := &journal.Step{RunID: rc.rec.RunID, Address: address, StepID: step.ID}
	fail := func(code errcode.Code, message string) error {
		rec.Status = contract.StepFailed
		var err error
		rec.Error, err = json.Marshal(&contract.ErrorBody{Code: code, Message: message,
			Detail: map[string]any{"kind": "read", "input_digest": digest}})
		return err
	}
	var err error
	if content, artifact, failure := refs.Read(doc.Ref); failure != nil {
		err = fail(failure.Code, failure.Message)
	} else {
		rec.Status = contract.StepSuccess
		rec.Output, err = json.Marshal(map[string]any{"kind": "read", "input_digest": digest, "output": content,
			"artifact": artifact})
	}
	if err != nil {
		return err
	}
	return rc.e.Journal.RecordStep(durable(ctx), rec)
}
