package run

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/turn"
)

// OpenTurn is an agent turn a run waits on, read from its record
// (kernel/run/turn).
type OpenTurn = turn.Open

// PriorStep is one settled step's output, a context entry of a turn.
type PriorStep = turn.PriorStep

// ErrTurnUnknown is the code of a turn address the run does not wait on.
const ErrTurnUnknown = turn.CodeTurnUnknown

// Turn reads an open agent turn of a root run by its address from the root.
func (k *Kernel) Turn(ctx context.Context, rootID, address string) (*OpenTurn, error) {
	root, err := k.Journal.GetRun(durable(ctx), rootID)
	if err != nil {
		return nil, err
	}
	if root.ParentRunID != "" {
		return nil, contract.Errorf("run_is_child", "run %s is a child run; address its turns from its root run", rootID)
	}
	st, err := k.engine.treeState(ctx, rootID)
	if err != nil {
		return nil, err
	}
	w, ok := st.open[address]
	if !ok {
		return nil, contract.Errorf(ErrTurnUnknown, "run %s waits on no turn at %q; turn_list shows what it waits on", rootID, address)
	}
	if w.req.Kind != contract.RequestAgent {
		return nil, contract.Errorf("turn_not_agent", "%s is a %s request, not an agent turn: a person answers it through runx resume under approvals", address, w.req.Kind)
	}
	rec := root
	if w.runID != rootID {
		if rec, err = k.Journal.GetRun(durable(ctx), w.runID); err != nil {
			return nil, err
		}
	}
	p, err := pkg.Load(rec.PackageDir, pkg.LoadOptions{RunxVersion: k.Options.RunxVersion})
	if err != nil {
		return nil, contract.Errorf("resume_package_drift", "package %s of run %s no longer loads: %v", rec.PackageDir, rec.RunID, err)
	}
	if p.Digest != rec.PackageDigest {
		return nil, contract.Errorf("resume_package_drift", "package %s changed since run %s paused; start a new run", rec.SkillName, rec.RunID)
	}
	m := p.Method(rec.Method)
	if m == nil || m.Step(w.local) == nil {
		return nil, contract.Errorf("resume_package_drift", "package %s no longer has the step of turn %s", rec.SkillName, address)
	}
	t := &OpenTurn{Address: address, Local: w.local, RunID: rec.RunID, Package: p, Method: m, Step: m.Step(w.local),
		Request: contract.Request{Address: address, Kind: w.req.Kind, RequestDigest: w.req.RequestDigest, Payload: w.req.Payload,
			Summary: contract.RequestSummary{PayloadDigest: payloadDigest(w.req.Payload), StepID: w.local}}}
	var payload struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal(w.req.Payload, &payload); err != nil {
		return nil, contract.Errorf(CodeJournalRecordInvalid, "the journal's request of turn %s does not decode: %v", address, err)
	}
	t.Inputs = orEmpty(payload.Inputs)
	steps, err := k.Journal.Steps(durable(ctx), rec.RunID)
	if err != nil {
		return nil, err
	}
	for _, s := range m.Steps {
		if s.ID == w.local {
			break
		}
		if r := steps[s.ID]; r != nil && r.Status == contract.StepSuccess {
			t.Prior = append(t.Prior, PriorStep{StepID: s.ID, Output: r.Output})
		}
	}
	if t.Calls, err = turn.Calls(steps, w.local); err != nil {
		return nil, err
	}
	waiting, err := turn.PendingCalls(ctx, k.Journal, rec.RunID, w.local, steps)
	if err != nil {
		return nil, err
	}
	for _, p := range waiting {
		t.Calls = append(t.Calls, turn.PendingRecord(p))
	}
	slices.SortFunc(t.Calls, func(a, b TurnCallRecord) int { return a.Index - b.Index })
	return t, nil
}
