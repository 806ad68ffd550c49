package turn

import (
	"context"
	"encoding/json"
	"github.com/runxhq/runx/sdk/artifactstore"
	"slices"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/kernel/run/skillctx"
	"github.com/runxhq/runx/sdk/errcode"
)

// Open is an agent turn a run waits on, read from its record: what an MCP
// front serves through turn_status and turn_read. It is addressed from the
// root, as answer/0#report is a turn of the child at answer/0.
type Open struct {
	Address string
	// Local is the turn's address in the run that asks it (its step id).
	Local   string
	RunID   string
	Request contract.Request
	Package *pkg.Package
	Method  *pkg.Method
	Step    *pkg.Step
	// Inputs are the turn's inputs, as its request carries them.
	Inputs map[string]any
	// Prior are the outputs of the steps of its run settled before it, in
	// the order they settled: the turn's current context.
	Prior []PriorStep
	// Calls are the calls the turn has made so far, by index.
	Calls []CallRecord
	// Skills are the context skills the turn reads, as its request
	// carries them: untrusted advisory data, each labelled by its digest.
	Skills []skillctx.Skill
}

// Read reads an open agent turn of a root run by its address from the
// root, from its record: the package as the run bound it, the turn's
// inputs, the outputs settled before it and the calls it made.
func Read(ctx context.Context, e Engine, rootID, address string) (*Open, error) {
	j, durable := e.Journal(), context.WithoutCancel(ctx)
	root, err := j.GetRun(durable, rootID)
	if err != nil {
		return nil, err
	}
	if root.ParentRunID != "" {
		return nil, contract.Errorf(errcode.RunIsChild, "run %s is a child run; address its turns from its root run", rootID)
	}
	w, err := e.Waiting(ctx, rootID, address)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, contract.Errorf(errcode.TurnUnknown, "run %s waits on no turn at %q; turn_list shows what it waits on", rootID, address)
	}
	if w.Request.Kind != contract.RequestAgent {
		return nil, contract.Errorf(errcode.TurnNotAgent, "%s is a %s request, not an agent turn: a person answers it through runx resume under approvals", address, w.Request.Kind)
	}
	rec := root
	if w.RunID != rootID {
		if rec, err = j.GetRun(durable, w.RunID); err != nil {
			return nil, err
		}
	}
	p, err := pkg.Load(rec.PackageDir, e.LoadOptions())
	if err != nil {
		return nil, contract.Errorf(errcode.ResumePackageDrift, "package %s of run %s no longer loads: %v", rec.PackageDir, rec.RunID, err)
	}
	if p.Digest != rec.PackageDigest {
		return nil, contract.Errorf(errcode.ResumePackageDrift, "package %s changed since run %s paused; start a new run", rec.SkillName, rec.RunID)
	}
	m := p.Method(rec.Method)
	if m == nil || m.Step(w.Local) == nil {
		return nil, contract.Errorf(errcode.ResumePackageDrift, "package %s no longer has the step of turn %s", rec.SkillName, address)
	}
	t := &Open{Address: address, Local: w.Local, RunID: rec.RunID, Package: p, Method: m, Step: m.Step(w.Local),
		Request: contract.Request{Address: address, Kind: w.Request.Kind, RequestDigest: w.Request.RequestDigest, Payload: w.Request.Payload,
			Summary: contract.RequestSummary{PayloadDigest: digestRaw(w.Request.Payload), StepID: w.Local}}}
	var payload struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal(w.Request.Payload, &payload); err != nil {
		return nil, contract.Errorf(errcode.JournalRecordInvalid, "the journal's request of turn %s does not decode: %v", address, err)
	}
	t.Inputs = payload.Inputs
	if t.Skills, err = skillctx.FromPayload(w.Request.Payload); err != nil {
		return nil, err
	}
	if t.Inputs == nil {
		t.Inputs = map[string]any{}
	}
	steps, err := j.Steps(durable, rec.RunID)
	if err != nil {
		return nil, err
	}
	for _, s := range m.Steps {
		if s.ID == w.Local {
			break
		}
		if r := steps[s.ID]; r != nil && r.Status == contract.StepSuccess {
			t.Prior = append(t.Prior, PriorStep{StepID: s.ID, Output: r.Output})
		}
	}
	if t.Calls, err = Calls(steps, w.Local); err != nil {
		return nil, err
	}
	waiting, err := PendingCalls(ctx, j, rec.RunID, w.Local, steps)
	if err != nil {
		return nil, err
	}
	for _, p := range waiting {
		t.Calls = append(t.Calls, PendingRecord(p))
	}
	slices.SortFunc(t.Calls, func(a, b CallRecord) int { return a.Index - b.Index })
	return t, nil
}

// PriorStep is one settled step's output, a context entry of a turn.
type PriorStep struct {
	StepID string
	Output json.RawMessage
}

// CallRecord is one call a turn made, as its run recorded it.
type CallRecord struct {
	Index       int                 `json:"index"`
	Address     string              `json:"address"`
	CallID      string              `json:"call_id,omitempty"`
	Tool        string              `json:"tool"`
	InputDigest string              `json:"input_digest"`
	Status      contract.CallStatus `json:"status"`
	Output      json.RawMessage     `json:"output,omitempty"`
	// Artifacts are its packet outputs' project artifacts, by output name.
	Artifacts map[string]artifactstore.Descriptor `json:"artifacts,omitempty"`
	Error     *contract.ErrorBody                 `json:"error,omitempty"`
	ReceiptID string                              `json:"receipt_id,omitempty"`
	// RequestDigest binds a pending call (ask_human) to what it asks.
	RequestDigest string `json:"request_digest,omitempty"`
	// Reuse is what became of a skill call's reuse option: the source it
	// reused, or why it recomputed.
	Reuse *runstate.ReuseNote `json:"reuse,omitempty"`
	// floor marks a pending call the approval floor stopped; skill one
	// whose child run waits.
	floor, skill bool
}

// PendingRecord is a pending call as its turn lists it, from its event.
func PendingRecord(p Pending) CallRecord {
	return CallRecord{Index: p.Index, Address: p.Address, CallID: p.CallID, Tool: p.Tool,
		InputDigest: p.InputDigest, Status: contract.CallPending, RequestDigest: p.RequestDigest, floor: p.Floor, skill: p.Skill}
}

// Recorded is how a turn's call is recorded in its step's record: the
// script call's shape, so the step's receipt commits it the same way, with
// the call_id its host pinned.
type Recorded struct {
	Kind        string              `json:"kind"`
	Tool        string              `json:"tool"`
	InputDigest string              `json:"input_digest"`
	CallID      string              `json:"call_id,omitempty"`
	Output      json.RawMessage     `json:"output,omitempty"`
	Reuse       *runstate.ReuseNote `json:"reuse,omitempty"`
	// Artifacts are its packet outputs' project artifacts, by output name.
	Artifacts map[string]artifactstore.Descriptor `json:"artifacts,omitempty"`
}

// Calls reads a turn's recorded calls, in index order.
func Calls(steps map[string]*journal.Step, local string) ([]CallRecord, error) {
	var out []CallRecord
	prefix := local + "/"
	for addr, s := range steps {
		rest, ok := strings.CutPrefix(addr, prefix)
		if !ok || strings.ContainsAny(rest, "/[#") {
			continue
		}
		i, err := strconv.Atoi(rest)
		if err != nil {
			continue
		}
		r := CallRecord{Index: i, Address: addr, Status: contract.CallStatus(s.Status), ReceiptID: s.ReceiptID}
		if s.Status == contract.StepSuccess {
			var c Recorded
			if err := json.Unmarshal(s.Output, &c); err != nil {
				return nil, contract.Errorf(errcode.JournalRecordInvalid, "the journal's record of call %s does not decode: %v", addr, err)
			}
			r.Tool, r.InputDigest, r.CallID, r.Output, r.Reuse, r.Artifacts = c.Tool, c.InputDigest, c.CallID, c.Output, c.Reuse, c.Artifacts
		} else {
			f := &contract.ErrorBody{}
			if err := json.Unmarshal(s.Error, f); err != nil {
				return nil, contract.Errorf(errcode.JournalRecordInvalid, "the journal's record of call %s does not decode: %v", addr, err)
			}
			m, _ := f.Detail.(map[string]any)
			r.Tool, _ = m["tool"].(string)
			r.InputDigest, _ = m["input_digest"].(string)
			r.CallID, _ = m["call_id"].(string)
			r.Error = f
			if f.Code == errcode.CallCancelled {
				r.Status = contract.CallCancelled
			}
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b CallRecord) int { return a.Index - b.Index })
	return out, nil
}
