package run

import (
	"context"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
)

// An effect-free root run's last step is recorded in the seal's own
// transaction rather than one of its own (docs/decisions/journal.md, "One
// transaction for the last step and the seal"): between that step's settle
// and the seal nothing leaves the process but the step-sealed progress
// notification, which is held too and sent once the seal is committed. A
// crash before that commit leaves the run running with the step
// unrecorded, and its next driver runs the step again, as it would after
// a power cut (the step's deferred record was not durable before the seal
// either); the step changed nothing.

// holdsRecord reports whether the unit at local is the step whose record
// this run holds for its seal.
func (rc *runCtx) holdsRecord(step *pkg.Step, local string) bool {
	steps := rc.method.Steps
	return rc.holdLast && local == step.ID && len(steps) > 0 && steps[len(steps)-1] == step && rc.batchFor(local) == nil
}

// hold keeps a settled step's record for the seal.
func (rc *runCtx) hold(rec *journal.Step) {
	rc.mu.Lock()
	rc.held = append(rc.held, rec)
	rc.mu.Unlock()
}

// takeHeld returns the held records and forgets them.
func (rc *runCtx) takeHeld() []*journal.Step {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	h := rc.held
	rc.held = nil
	return h
}

// progressSealed reports a step sealed now, or once the seal commits when
// its record is held for it.
func (rc *runCtx) progressSealed(ctx context.Context, p Progress) {
	rc.mu.Lock()
	held := len(rc.held) > 0
	if held {
		rc.heldProgress = append(rc.heldProgress, p)
	}
	rc.mu.Unlock()
	if !held {
		reportProgress(ctx, p)
	}
}

// sendHeldProgress reports what was held for the seal, after its commit.
func (rc *runCtx) sendHeldProgress(ctx context.Context) {
	rc.mu.Lock()
	ps := rc.heldProgress
	rc.heldProgress = nil
	rc.mu.Unlock()
	for _, p := range ps {
		reportProgress(ctx, p)
	}
}

// recordHeld records what a run held when it did not reach its seal's
// commit (the seal failed before it): best effort, as the step changed
// nothing and a run without its record runs the step again.
func (rc *runCtx) recordHeld(ctx context.Context) {
	for _, rec := range rc.takeHeld() {
		if rc.e.Journal.RecordStep(durable(ctx), rec) != nil {
			return
		}
	}
	rc.sendHeldProgress(ctx)
}
