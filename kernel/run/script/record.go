package script

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/errcode"
)

// Log is a script step's record in the run's journal: the requests it
// settled, read back in index order, and the waits and reads it settles
// without running anything.
type Log struct {
	RunID   string
	Run     Run
	Journal Journal
}

// Read reads a script's settled requests back from the journal, in index
// order, and the receipts its step commits.
func (l Log) Read(local string) ([]Recorded, []receipt.ChildRef, error) {
	steps, err := l.Journal.Steps(context.Background(), l.RunID)
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
	record := make([]Recorded, 0, len(entries))
	var refs []receipt.ChildRef
	for _, e := range entries {
		r, ref, err := l.recordedOf(e.idx, e.rec)
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

// Settled reads back the requests a drive just settled, by their
// addresses only, in index order: the record grows by them without the
// whole run being read again.
func (l Log) Settled(ctx context.Context, local string, asked []Pending) ([]Recorded, []receipt.ChildRef, error) {
	addresses := make([]string, len(asked))
	for i, p := range asked {
		addresses[i] = fmt.Sprintf("%s/%d", local, p.Index)
	}
	steps, err := l.Journal.StepsAt(ctx, l.RunID, addresses)
	if err != nil {
		return nil, nil, err
	}
	var record []Recorded
	var refs []receipt.ChildRef
	for i, p := range asked {
		s, ok := steps[addresses[i]]
		if !ok {
			return nil, nil, contract.Errorf(errcode.JournalRecordInvalid, "the journal holds no record of request %s the drive settled", addresses[i])
		}
		r, ref, err := l.recordedOf(p.Index, s)
		if err != nil {
			return nil, nil, err
		}
		record = append(record, r)
		if ref != nil {
			refs = append(refs, *ref)
		}
	}
	slices.SortFunc(record, func(a, b Recorded) int { return a.Index - b.Index })
	return record, refs, nil
}

// recordedOf is one settled request as the worker replays it, and the
// receipt it committed, if any.
func (l Log) recordedOf(idx int, rec *journal.Step) (Recorded, *receipt.ChildRef, error) {
	var meta struct {
		Kind        RequestKind       `json:"kind"`
		Tool        string            `json:"tool"`
		InputDigest string            `json:"input_digest"`
		SettledAt   int64             `json:"settled_at"`
		Output      json.RawMessage   `json:"output"`
		Artifact    *receipt.Artifact `json:"artifact"`
	}
	status, failure, ref, err := l.Run.Settled(rec)
	if err != nil {
		return Recorded{}, nil, err
	}
	r := Recorded{Index: idx}
	if len(rec.Output) > 0 {
		if err := json.Unmarshal(rec.Output, &meta); err != nil {
			return Recorded{}, nil, contract.Errorf(errcode.JournalRecordInvalid, "the journal's record of call %s does not decode: %v", rec.StepID, err)
		}
	}
	r.Kind, r.Tool, r.InputDigest, r.SettledAt, r.Artifact = meta.Kind, meta.Tool, meta.InputDigest, meta.SettledAt, meta.Artifact
	if r.Kind == "" { // a call or read that failed records its request in its error's detail
		r.Kind, r.Tool, r.InputDigest = FailedRequest(failure)
	}
	if status == contract.StepSuccess {
		r.Output = meta.Output
	} else if failure != nil {
		r.Error = &Error{Code: failure.Code, Message: failure.Message}
	}
	return r, ref, nil
}

// Wait settles a wait at the time runx records.
func (l Log) Wait(ctx context.Context, stepID, address string, p Pending, now time.Time) error {
	out, err := json.Marshal(map[string]any{"kind": KindWait, "settled_at": now.UnixMilli(), "until": p.Until})
	if err != nil {
		return err
	}
	return l.Journal.RecordStep(context.WithoutCancel(ctx), &journal.Step{RunID: l.RunID, Address: address, StepID: stepID, Status: contract.StepSuccess, Output: out})
}
