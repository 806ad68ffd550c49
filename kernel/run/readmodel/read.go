package readmodel

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// RunReadSchema names a run's read model.
const RunReadSchema = "runx.run_read.v1"

// EventAnswerRefused records an agent answer its step refused, with why.
const EventAnswerRefused = "answer.refused"

// RunRead is `runx history <run-id> --json` and the run.read tool's answer.
type RunRead struct {
	Schema        string             `json:"schema"`
	RunID         string             `json:"run_id"`
	SkillName     string             `json:"skill_name"`
	Method        string             `json:"method"`
	State         journal.RunState   `json:"state"`
	Outcome       seal.Outcome       `json:"outcome,omitempty"`
	SealReason    seal.Reason        `json:"seal_reason,omitempty"`
	ReceiptID     string             `json:"receipt_id,omitempty"`
	Driven        bool               `json:"driven"`
	PackageDigest string             `json:"package_digest"`
	ClosureDigest string             `json:"closure_digest"`
	Waiting       []contract.Request `json:"waiting"`
	// AnswersTemplate is a resume document already bound to every request
	// the run waits on, as the paused envelope carried it.
	AnswersTemplate *contract.ResumeDocument `json:"answers_template,omitempty"`
	Answered        []AnsweredRequest        `json:"answered"`
	// RefusedAnswers are agent answers a step refused, each with why: never
	// the run's, but explained, as the paused envelope explained them.
	RefusedAnswers []contract.RefusedAnswer `json:"refused_answers,omitempty"`
	Steps          []journal.Step           `json:"steps"`
	Events         map[string][]RunEvent    `json:"events"`
	Cursor         string                   `json:"cursor"`
	Children       []string                 `json:"children,omitempty"`
	Envelope       json.RawMessage          `json:"envelope,omitempty"`
}

// AnsweredRequest is a decision the run admitted.
type AnsweredRequest struct {
	Address       string          `json:"address"`
	Lane          string          `json:"lane"`
	RequestDigest string          `json:"request_digest"`
	Used          bool            `json:"used"`
	Value         json.RawMessage `json:"value"`
}

// RunEvent is one event in its stream.
type RunEvent struct {
	Cursor string          `json:"cursor"`
	Type   string          `json:"type"`
	Data   json.RawMessage `json:"data"`
	At     string          `json:"at"`
}

// Reader reads what the project's runs recorded: their records, what they
// wait on, and the payloads of those requests.
type Reader struct {
	Journal *journal.Journal
	// ProjectDir holds the project's artifact store, where a payload past
	// RequestPayloadInlineMax is kept.
	ProjectDir string
	// Scrub is the receipt boundary a payload passes before it is kept:
	// the run's taint set removed.
	Scrub func([]byte) []byte
}

// Waiting is a request a run (or a child) waits on, addressed from the
// root, with the run that asks it and its address there.
type Waiting struct {
	contract.Request
	RunID string
	Local string // the address inside its own run
}

// ReadRun reads a run's record: what it waits on (its children's requests
// included, addressed from it), what it was answered, and its events after a
// cursor.
func (e *Reader) ReadRun(ctx context.Context, runID, after string) (*RunRead, error) {
	rec, err := e.Journal.GetRun(durable(ctx), runID)
	if err != nil {
		return nil, err
	}
	var afterSeq int64
	if after != "" {
		if afterSeq, err = strconv.ParseInt(after, 10, 64); err != nil || afterSeq < 0 {
			return nil, contract.Errorf(errcode.CursorInvalid, "--after takes a cursor a previous read returned")
		}
	}
	out := &RunRead{
		Schema: RunReadSchema, RunID: rec.RunID, SkillName: rec.SkillName, Method: rec.Method,
		State: rec.State, Outcome: rec.Outcome, SealReason: rec.SealReason, ReceiptID: rec.ReceiptID,
		Driven: e.Journal.Driven(runID), PackageDigest: rec.PackageDigest, ClosureDigest: rec.ClosureDigest,
		Waiting: []contract.Request{}, Answered: []AnsweredRequest{}, Steps: []journal.Step{},
		Events: map[string][]RunEvent{}, Cursor: strconv.FormatInt(afterSeq, 10),
	}
	if rec.State == journal.StateSealed {
		out.Envelope = rec.Envelope
	}
	var waiting []Waiting
	if err := e.CollectWaiting(ctx, rec.RunID, "", &waiting); err != nil {
		return nil, err
	}
	if len(waiting) > 0 {
		if out.Waiting, err = e.PresentWaiting(waiting); err != nil {
			return nil, err
		}
		out.AnswersTemplate = AnswersTemplate(out.Waiting)
	}
	decisions, err := e.Journal.Asks().Decisions(durable(ctx), runID)
	if err != nil {
		return nil, err
	}
	for _, d := range decisions {
		out.Answered = append(out.Answered, AnsweredRequest{Address: d.Address, Lane: d.Lane, RequestDigest: d.RequestDigest, Used: d.Used, Value: d.Value})
	}
	steps, err := e.Journal.Steps(durable(ctx), runID)
	if err != nil {
		return nil, err
	}
	for _, s := range steps {
		out.Steps = append(out.Steps, *s)
	}
	sortSteps(out.Steps)
	all, err := e.Journal.Events(durable(ctx), runID, 0)
	if err != nil {
		return nil, err
	}
	var events []journal.Event
	for _, ev := range all {
		if ev.Type == EventAnswerRefused {
			var r contract.RefusedAnswer
			if json.Unmarshal(ev.Data, &r) == nil {
				out.RefusedAnswers = append(out.RefusedAnswers, r)
			}
		}
		if ev.Seq > afterSeq {
			events = append(events, ev)
		}
	}
	for _, ev := range events {
		c := strconv.FormatInt(ev.Seq, 10)
		out.Events[ev.Stream] = append(out.Events[ev.Stream], RunEvent{Cursor: c, Type: ev.Type, Data: ev.Data, At: ev.At})
		out.Cursor = c
	}
	children, err := e.Journal.Children(durable(ctx), runID)
	if err != nil {
		return nil, err
	}
	for _, c := range children {
		out.Children = append(out.Children, c.RunID)
	}
	return out, nil
}

// CollectWaiting gathers the open requests of a run and its paused children,
// each addressed from the run read and kept with the run that asks it.
func (e *Reader) CollectWaiting(ctx context.Context, runID, prefix string, into *[]Waiting) error {
	reqs, err := e.Journal.Asks().Requests(durable(ctx), runID)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		if r.State != journal.RequestOpen {
			continue
		}
		addr := r.Address
		if prefix != "" {
			addr = prefix + "#" + addr
		}
		*into = append(*into, Waiting{Request: contract.Request{Address: addr, Kind: r.Kind, RequestDigest: r.RequestDigest, Payload: r.Payload,
			Summary: contract.RequestSummary{PayloadDigest: PayloadDigest(r.Payload)}}, RunID: runID, Local: r.Address})
	}
	children, err := e.Journal.Children(durable(ctx), runID)
	if err != nil {
		return err
	}
	for _, c := range children {
		if c.State == journal.StateSealed {
			continue
		}
		p := c.ParentAddress
		if prefix != "" {
			p = prefix + "#" + p
		}
		if err := e.CollectWaiting(ctx, c.RunID, p, into); err != nil {
			return err
		}
	}
	return nil
}

// PayloadDigest is a request payload's digest, over its canonical JSON
// (over its bytes where they are not JSON).
func PayloadDigest(raw json.RawMessage) string {
	c, err := canon.CanonicalJSON(raw)
	if err != nil {
		return canon.DigestBytes(raw)
	}
	return canon.DigestBytes(c)
}

// durable is a context a read's journal calls finish under: a caller's
// stop does not cut a read short.
func durable(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

func sortSteps(steps []journal.Step) {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].Seq < steps[j-1].Seq; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
}
