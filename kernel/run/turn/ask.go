package turn

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// EventCallPending records a turn call that waits on a person.
const EventCallPending = "call.pending"

// askInput is what ask_human takes: {reason} for a yes or no, or
// {questions}: one to three, each with at most four options.
type askInput struct {
	Reason    string          `json:"reason"`
	Questions []*pkg.Question `json:"questions"`
}

// AskRequest checks an ask_human input and builds what it asks: an
// approval for a reason, a question request for questions, in the shapes
// an ask step's requests have, so runx resume holds the answer to the same
// rules.
func AskRequest(step *pkg.Step, raw json.RawMessage) (contract.RequestKind, map[string]any, error) {
	var in askInput
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return "", nil, contract.Errorf(errcode.AskHumanInputInvalid, "ask_human takes {reason} or {questions: [{id, prompt, options?, free_text?, required?}]}")
	}
	switch {
	case (in.Reason == "") == (len(in.Questions) == 0):
		return "", nil, contract.Errorf(errcode.AskHumanInputInvalid, "ask_human takes exactly one of reason (a yes or no) and questions")
	case in.Reason != "":
		return contract.RequestApproval, map[string]any{"step_id": step.ID, "gate": "ask_human", "reason": in.Reason}, nil
	case len(in.Questions) > 3:
		return "", nil, contract.Errorf(errcode.AskHumanInputInvalid, "ask_human puts one to three questions, not %d", len(in.Questions))
	}
	seen := map[string]bool{}
	for i, q := range in.Questions {
		if q == nil || q.ID == "" || q.Prompt == "" {
			return "", nil, contract.Errorf(errcode.AskHumanInputInvalid, "question %d needs an id and a prompt", i)
		}
		if seen[q.ID] {
			return "", nil, contract.Errorf(errcode.AskHumanInputInvalid, "question id %q is used twice", q.ID)
		}
		seen[q.ID] = true
		if len(q.Options) > 4 {
			return "", nil, contract.Errorf(errcode.AskHumanInputInvalid, "question %s offers %d options; at most four, the recommended first", q.ID, len(q.Options))
		}
		for _, o := range q.Options {
			if o == nil || o.Label == "" {
				return "", nil, contract.Errorf(errcode.AskHumanInputInvalid, "question %s has an option without a label", q.ID)
			}
		}
	}
	return contract.RequestQuestion, map[string]any{"step_id": step.ID, "questions": in.Questions}, nil
}

// Pending is a turn call waiting on a person (or on its child run), from
// its event.
type Pending struct {
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

// PendingCalls reads a turn's calls that wait on a person and are not yet
// settled.
func PendingCalls(ctx context.Context, j *journal.Journal, runID, local string, steps map[string]*journal.Step) ([]Pending, error) {
	events, err := j.Events(context.WithoutCancel(ctx), runID, 0)
	if err != nil {
		return nil, err
	}
	var out []Pending
	for _, ev := range events {
		if ev.Stream != "calls" || ev.Type != EventCallPending {
			continue
		}
		var p Pending
		if json.Unmarshal(ev.Data, &p) != nil || !strings.HasPrefix(p.Address, local+"/") || steps[p.Address] != nil {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// PendingResult is a pending call as its host is answered.
func PendingResult(t *Open, p Pending) *CallResult {
	return &CallResult{CallRecord: CallRecord{Index: p.Index, Address: t.Address + "/" + strconv.Itoa(p.Index), CallID: p.CallID, Tool: p.Tool, InputDigest: p.InputDigest, Status: contract.CallPending}}
}

// Repause puts a run whose turn stays open back to waiting on what stays
// open, once one of its turn's calls used a decision.
func Repause(ctx context.Context, j *journal.Journal, runID string) error {
	reqs, err := j.Asks().Requests(context.WithoutCancel(ctx), runID)
	if err != nil {
		return err
	}
	var open []*journal.Request
	for _, r := range reqs {
		if r.State == journal.RequestOpen {
			open = append(open, r)
		}
	}
	return j.Pause(context.WithoutCancel(ctx), runID, open)
}
