package run

import (
	"context"
	"fmt"
	"sync"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/errcode"
)

// fanOut runs a for_each step once per item, at most N at once, where N is
// the least of the step's concurrency, the authority's max_concurrency and
// the host ceiling. Its output is the items' outputs in item order; one failed
// item fails the step, naming its index, and every item's receipt is kept in
// the tree under the step's.
func (rc *runCtx) fanOut(ctx context.Context, step *pkg.Step, sc *scope) stepRun {
	itemsValue, err := resolveString(step.ForEach, sc)
	if err != nil {
		return rc.runner().SettleNow(ctx, step, step.ID, rc.Depth+1, contract.StepFailed, nil, &contract.ErrorBody{Code: errcode.ForEachUnresolved, Message: fmt.Sprintf("step %s: %v", step.ID, err)}, nil)
	}
	items, ok := itemsValue.([]any)
	if !ok {
		return rc.runner().SettleNow(ctx, step, step.ID, rc.Depth+1, contract.StepFailed, nil, &contract.ErrorBody{Code: errcode.ForEachNotArray, Message: fmt.Sprintf("step %s: for_each %s is %s, not an array", step.ID, step.ForEach, describe(itemsValue))}, nil)
	}
	if step.Kind == pkg.KindSkill {
		// Every item starts a child run: max_fanout bounds them all at once,
		// before the first starts.
		if err := gate.ChildLimits(rc.Base, rc.method, step, rc.RunDepth, len(items)); err != nil {
			return rc.runner().SettleNow(ctx, step, step.ID, rc.Depth+1, contract.StepRefused, nil, contract.BodyOf(err), nil)
		}
	}
	// The step's own receipt is admitted before its items.
	if !rc.Budget.Admit(1) {
		return stepRun{Settled: &settled{Status: contract.StepRefused, Failure: &contract.ErrorBody{Code: errcode.ReceiptBudgetExceeded, Message: "step " + rc.Address(step.ID) + " would take the receipt tree past " + rc.Budget.Bound()}}}
	}
	results := make([]stepRun, len(items))
	if runstep.BatchedItems(step) {
		// Items that change nothing are group-committed: one that a crash
		// leaves unrecorded runs again, which is harmless. Items that may
		// act keep a durable record each.
		rc.batching.Set(runstep.NewBatch(rc.e.Journal, step.ID+"["))
		defer rc.batching.Set(nil)
	}
	limit := authority.ConcurrencyFor(step.Concurrency, rc.Base.Limits.MaxConcurrency.Int(), rc.e.concurrencyFor(0))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	var failed sync.Once
	stop := make(chan struct{})
	// Items settled so far, reported one at a time.
	var progressMu sync.Mutex
	settledItems := 0
	for i, item := range items {
		local := fmt.Sprintf("%s[%d]", step.ID, i)
		if rec := rc.RecordedAt(local); rec != nil {
			rc.Budget.Replay(1)
			s, err := settledOf(rec)
			results[i] = stepRun{Settled: s, Err: err}
			progressMu.Lock()
			settledItems++ // a resumed fan-out counts what it replays
			progressMu.Unlock()
			continue
		}
		select {
		case <-stop:
			continue
		case sem <- struct{}{}:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			itemScope := &scope{input: sc.input, steps: rc.OutputsNow(), item: item, runID: sc.runID, act: sc.act}
			inputs, err := stepInputs(step, itemScope)
			if err != nil {
				results[i] = rc.runner().SettleNow(ctx, step, local, rc.Depth+2, contract.StepFailed, nil, contract.BodyOf(err), nil)
			} else {
				results[i] = rc.unit(ctx, step, local, inputs, rc.Depth+2)
			}
			if r := results[i]; r.Err != nil || r.Settled != nil && r.Settled.Status != contract.StepSuccess {
				failed.Do(func() { close(stop) })
			}
			if r := results[i]; r.Settled != nil {
				progressMu.Lock()
				settledItems++
				runstep.ReportProgress(ctx, Progress{Event: ProgressItemSettled, RunID: rc.rec.RunID, Address: rc.Address(step.ID), Status: r.Settled.Status, Done: settledItems, Total: len(items)})
				progressMu.Unlock()
			}
		}()
	}
	wg.Wait()
	if b := rc.batching.For(step.ID + "[0]"); b != nil {
		if err := b.Flush(durable(ctx)); err != nil {
			return stepRun{Err: err}
		}
	}
	return rc.runner().SettleFanOut(ctx, step, results)
}

// concurrencyFor is the least of a step's concurrency and the host ceiling.
func (e *engine) concurrencyFor(step int) int {
	limit := e.MaxConcurrency
	if limit <= 0 {
		limit = DefaultMaxConcurrency
	}
	if step > 0 && step < limit {
		limit = step
	}
	return limit
}
