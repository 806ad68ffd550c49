package run

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
)

// eventCallPending records a turn call that waits on a person.
const eventCallPending = "call.pending"

// askInput is what ask_human takes: {reason} for a yes or no, or
// {questions}: one to three, each with at most four options.
type askInput struct {
	Reason    string          `json:"reason"`
	Questions []*pkg.Question `json:"questions"`
}

// askRequest checks an ask_human input and builds what it asks: an approval
// for a reason, a question request for questions, in the shapes an ask
// step's requests have, so runx resume holds the answer to the same rules.
func askRequest(step *pkg.Step, raw json.RawMessage) (string, map[string]any, error) {
	var in askInput
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return "", nil, contract.Errorf("ask_human_input_invalid", "ask_human takes {reason} or {questions: [{id, prompt, options?, free_text?, required?}]}")
	}
	switch {
	case (in.Reason == "") == (len(in.Questions) == 0):
		return "", nil, contract.Errorf("ask_human_input_invalid", "ask_human takes exactly one of reason (a yes or no) and questions")
	case in.Reason != "":
		return contract.RequestApproval, map[string]any{"step_id": step.ID, "gate": "ask_human", "reason": in.Reason}, nil
	case len(in.Questions) > 3:
		return "", nil, contract.Errorf("ask_human_input_invalid", "ask_human puts one to three questions, not %d", len(in.Questions))
	}
	seen := map[string]bool{}
	for i, q := range in.Questions {
		if q == nil || q.ID == "" || q.Prompt == "" {
			return "", nil, contract.Errorf("ask_human_input_invalid", "question %d needs an id and a prompt", i)
		}
		if seen[q.ID] {
			return "", nil, contract.Errorf("ask_human_input_invalid", "question id %q is used twice", q.ID)
		}
		seen[q.ID] = true
		if len(q.Options) > 4 {
			return "", nil, contract.Errorf("ask_human_input_invalid", "question %s offers %d options; at most four, the recommended first", q.ID, len(q.Options))
		}
		for _, o := range q.Options {
			if o == nil || o.Label == "" {
				return "", nil, contract.Errorf("ask_human_input_invalid", "question %s has an option without a label", q.ID)
			}
		}
	}
	return contract.RequestQuestion, map[string]any{"step_id": step.ID, "questions": in.Questions}, nil
}

// pendingCall is an ask_human call waiting on a person, from its event.
type pendingCall struct {
	Address       string `json:"address"`
	Index         int    `json:"index"`
	CallID        string `json:"call_id"`
	Tool          string `json:"tool"`
	InputDigest   string `json:"input_digest"`
	RequestDigest string `json:"request_digest"`
	// Floor marks a call the approval floor stopped (not an ask_human):
	// the same call made again after the person's decision runs it, or
	// settles it declined.
	Floor bool `json:"floor,omitempty"`
	// Skill marks a skill call whose child run waits: its child's requests
	// are the child's own, and the call settles when the child seals. Input
	// and Act are what the call was made with, so whoever drives the run
	// next drives the child again.
	Skill bool            `json:"skill,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	Act   string          `json:"act,omitempty"`
}

// pendingCalls reads a turn's calls that wait on a person and are not yet
// settled.
func (k *Kernel) pendingCalls(ctx context.Context, runID, local string, steps map[string]*journal.Step) ([]pendingCall, error) {
	events, err := k.Journal.Events(durable(ctx), runID, 0)
	if err != nil {
		return nil, err
	}
	var out []pendingCall
	for _, ev := range events {
		if ev.Stream != "calls" || ev.Type != eventCallPending {
			continue
		}
		var p pendingCall
		if json.Unmarshal(ev.Data, &p) != nil || !strings.HasPrefix(p.Address, local+"/") || steps[p.Address] != nil {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// askHuman opens an ask_human call at <turn>/<index>: its request joins
// what the run waits on, and a person answers it under approvals with
// runx resume. The same call made again with its call_id collects the
// answer once it is recorded.
func (k *Kernel) askHuman(ctx context.Context, t *OpenTurn, index int, input json.RawMessage, digest string, req TurnCallRequest) (*TurnCallResult, error) {
	kind, payload, err := askRequest(t.Step, input)
	if err != nil {
		return nil, err
	}
	rc, err := k.turnRunCtx(ctx, t)
	if err != nil {
		return nil, err
	}
	local := t.Local + "/" + strconv.Itoa(index)
	r, err := rc.bindRequest(t.Step, local, kind, payload)
	if err != nil {
		return nil, err
	}
	if err := k.Journal.AddRequests(durable(ctx), t.RunID, []*journal.Request{{Address: local, Kind: kind, RequestDigest: r.RequestDigest, Payload: r.Payload}}); err != nil {
		return nil, err
	}
	p := pendingCall{Address: local, Index: index, CallID: req.CallID, Tool: req.Tool, InputDigest: digest, RequestDigest: r.RequestDigest}
	if err := k.Journal.AppendEvent(durable(ctx), t.RunID, "calls", eventCallPending, p); err != nil {
		return nil, err
	}
	res := pendingResult(t, p)
	if res.Waiting, err = k.engine.presentWaiting([]pending{{Request: r, runID: t.RunID, local: local}}); err != nil {
		return nil, err
	}
	return res, nil
}

func pendingResult(t *OpenTurn, p pendingCall) *TurnCallResult {
	return &TurnCallResult{TurnCallRecord: TurnCallRecord{Index: p.Index, Address: t.Address + "/" + strconv.Itoa(p.Index), CallID: p.CallID, Tool: p.Tool, InputDigest: p.InputDigest, Status: contract.CallPending}}
}

// collectAsk settles a pending ask_human call from the person's recorded
// decision, or reports it pending while none is.
func (k *Kernel) collectAsk(ctx context.Context, t *OpenTurn, p pendingCall) (*TurnCallResult, error) {
	ds, err := k.Journal.Decisions(durable(ctx), t.RunID)
	if err != nil {
		return nil, err
	}
	d := ds[p.Address]
	if d == nil || d.RequestDigest != p.RequestDigest {
		res := pendingResult(t, p)
		reqs, err := k.Journal.Requests(durable(ctx), t.RunID)
		if err != nil {
			return nil, err
		}
		for _, r := range reqs {
			if r.Address == p.Address {
				asked := contract.Request{Address: t.Address + "/" + strconv.Itoa(p.Index), Kind: r.Kind, RequestDigest: r.RequestDigest, Payload: r.Payload,
					Summary: contract.RequestSummary{PayloadDigest: payloadDigest(r.Payload), StepID: t.Local}}
				if res.Waiting, err = k.engine.presentWaiting([]pending{{Request: asked, runID: t.RunID, local: r.Address}}); err != nil {
					return nil, err
				}
			}
		}
		return res, nil
	}
	rc, err := k.turnRunCtx(ctx, t)
	if err != nil {
		return nil, err
	}
	body := rc.stepBody(t.Step, p.Address)
	body.Execution = execHost
	var output any
	if err := json.Unmarshal(d.Value, &output); err != nil {
		return nil, err
	}
	body.Extra = map[string]any{"decision": map[string]any{"lane": contract.LaneApprovals}}
	s, rec, err := rc.seal(t.Step, p.Address, body, contract.StepSuccess, output, nil, nil)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(s.output)
	rec.Output, _ = json.Marshal(turnCall{Kind: "call", Tool: p.Tool, InputDigest: p.InputDigest, CallID: p.CallID, Output: raw})
	if err := k.Journal.UseDecision(durable(ctx), t.RunID, p.Address, rec); err != nil {
		return nil, err
	}
	if err := k.repause(ctx, t.RunID); err != nil {
		return nil, err
	}
	out := &TurnCallResult{TurnCallRecord: TurnCallRecord{Index: p.Index, Address: t.Address + "/" + strconv.Itoa(p.Index), CallID: p.CallID,
		Tool: p.Tool, InputDigest: p.InputDigest, Status: contract.CallSuccess, Output: raw, ReceiptID: s.receiptID}}
	event := map[string]any{"address": out.Address, "call_id": p.CallID, "tool": p.Tool, "status": out.Status, "receipt_id": out.ReceiptID}
	return out, k.Journal.AppendEvent(durable(ctx), t.RunID, "calls", "call."+string(out.Status), event)
}

// repause puts a run whose turn stays open back to waiting on what stays
// open, once one of its turn's calls used a decision.
func (k *Kernel) repause(ctx context.Context, runID string) error {
	reqs, err := k.Journal.Requests(durable(ctx), runID)
	if err != nil {
		return err
	}
	var open []*journal.Request
	for _, r := range reqs {
		if r.State == journal.RequestOpen {
			open = append(open, r)
		}
	}
	return k.Journal.Pause(durable(ctx), runID, open)
}

// turnRunCtx rebuilds the runCtx of the run a turn belongs to from its
// record, as a resume does.
func (k *Kernel) turnRunCtx(ctx context.Context, t *OpenTurn) (*runCtx, error) {
	return k.runCtxFor(ctx, t.RunID)
}

// openTurnCallRequests are the requests a turn's calls opened and a person
// has not answered: the turn's gate waits on them beside its own, so a
// resume that drives the run keeps them.
func (rc *runCtx) openTurnCallRequests(ctx context.Context, local string) []pending {
	reqs, err := rc.e.Journal.Requests(durable(ctx), rc.rec.RunID)
	if err != nil {
		return nil
	}
	var out []pending
	for _, r := range reqs {
		rest, ok := strings.CutPrefix(r.Address, local+"/")
		if !ok || r.State != journal.RequestOpen || strings.ContainsAny(rest, "/#[") {
			continue
		}
		if d := rc.Decisions[r.Address]; d != nil && d.RequestDigest == r.RequestDigest {
			continue // answered: the call collects it
		}
		out = append(out, pending{Request: contract.Request{Address: rc.address(r.Address), Kind: r.Kind, RequestDigest: r.RequestDigest, Payload: r.Payload,
			Summary: contract.RequestSummary{PayloadDigest: payloadDigest(r.Payload), StepID: local}}, runID: rc.rec.RunID, local: r.Address})
	}
	return out
}
