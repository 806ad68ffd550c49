package step

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/errcode"
)

// SettleFanOut seals a fan-out step over its items' results, in item
// order: its output is theirs, one failed item fails it (naming its index),
// and every item's receipt is kept under its own.
func (r *Run) SettleFanOut(ctx context.Context, step *pkg.Step, results []Result) Result {
	var waiting []Pending
	var refused []contract.RefusedAnswer
	var refs []receipt.ChildRef
	outputs := make([]any, len(results))
	var failure *contract.ErrorBody
	status := contract.StepSuccess
	for _, res := range results {
		if res.Stopped && res.Err == nil {
			// An item a stop interrupted is not a failure: the step stays
			// unsettled, its recorded items kept, for the next driver.
			return Result{Stopped: true}
		}
	}
	for i, res := range results {
		switch {
		case res.Err != nil:
			return res
		case len(res.Waiting) > 0 || len(res.Refused) > 0:
			waiting, refused = append(waiting, res.Waiting...), append(refused, res.Refused...)
		case res.Settled == nil:
			if failure == nil {
				status, failure = contract.StepFailed, &contract.ErrorBody{Code: errcode.ForEachItemNotRun, Message: fmt.Sprintf("step %s item %d did not run because an earlier item failed", step.ID, i)}
			}
		default:
			refs = append(refs, res.Settled.Ref)
			outputs[i] = res.Settled.Output
			if res.Settled.Status != contract.StepSuccess && (failure == nil || failure.Code == errcode.ForEachItemNotRun) {
				status = contract.StepFailed
				if res.Settled.Status == contract.StepRefused {
					status = contract.StepRefused
				}
				inner := res.Settled.Failure
				failure = &contract.ErrorBody{Code: inner.Code, Message: fmt.Sprintf("step %s item %d: %s", step.ID, i, inner.Message)}
			}
		}
	}
	if len(waiting) > 0 || len(refused) > 0 {
		return Result{Waiting: waiting, Refused: refused}
	}
	body := r.StepBody(step, step.ID)
	body.Execution = ExecGraph
	var output any
	if status == contract.StepSuccess {
		output = outputs
	}
	s, rec, err := r.Seal(step, step.ID, body, status, output, failure, refs)
	if err != nil {
		return Result{Err: err}
	}
	if err := r.Journal.RecordStep(durable(ctx), rec); err != nil {
		return Result{Err: err}
	}
	return Result{Settled: s}
}
