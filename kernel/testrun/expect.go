package testrun

import (
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
)

// checkExpect compares a run's envelope and root receipt with a test's
// expectations and lists every mismatch.
func checkExpect(tc *pkg.TestCase, env *contract.SkillRun, store *receipt.Store) []string {
	var failures []string
	exp := tc.Expect
	if exp == nil {
		exp = &pkg.Expectation{}
	}
	want := exp.Status
	if want == "" {
		want = contract.StatusSealed
	}
	if env.Status != want {
		failures = append(failures, fmt.Sprintf("status: want %s, got %s", want, env.Status))
	}
	wantOutcome := exp.Outcome
	if wantOutcome == "" && exp.Status == "" {
		wantOutcome = seal.OutcomeCompleted
	}
	if wantOutcome != "" && env.Outcome != wantOutcome {
		msg := fmt.Sprintf("outcome: want %s, got %s", wantOutcome, env.Outcome)
		if env.Error != nil {
			msg += fmt.Sprintf(" (%s: %s)", env.Error.Code, env.Error.Message)
		}
		failures = append(failures, msg)
	}
	var result any
	if len(env.Result) == 0 {
		// A paused run has no result yet: it reads as null.
	} else if err := json.Unmarshal(env.Result, &result); err != nil {
		return append(failures, "result is not JSON")
	}
	if o := exp.Output; o != nil {
		var msg string
		if o.Mode == pkg.CompareExact {
			msg = matchExact(o.Value, result)
		} else {
			msg = matchSubset("", normalize(o.Value), result)
		}
		if msg != "" {
			failures = append(failures, "output: "+msg)
		}
	}
	for _, ptr := range exp.Absent {
		if _, present := resolvePointer(result, ptr); present {
			failures = append(failures, "output: "+ptr+" must be absent")
		}
	}
	if len(exp.Receipt) > 0 {
		view, err := receiptView(store, env.ReceiptID)
		if err != nil {
			failures = append(failures, "receipt: "+err.Error())
		} else if msg := matchSubset("", normalize(exp.Receipt), view); msg != "" {
			failures = append(failures, "receipt: "+msg)
		}
	}
	return failures
}

// receiptView is what expect.receipt matches: the root receipt's body fields
// beside its schema and id, and child_receipt_count.
func receiptView(store *receipt.Store, id string) (map[string]any, error) {
	rec, _, err := store.Get(id)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(rec.Body)
	if err != nil {
		return nil, err
	}
	var view map[string]any
	if err := json.Unmarshal(raw, &view); err != nil {
		return nil, err
	}
	view["schema"] = rec.Schema
	view["id"] = rec.ID
	view["child_receipt_count"] = float64(len(rec.Body.Children))
	return view, nil
}
