package step

import (
	"context"
	"sync"

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

// Held is what a run holds for its seal: its last step's record and the
// progress that follows it. The zero value holds nothing.
type Held struct {
	// Last: this effect-free root run records its last step in its seal's
	// transaction.
	Last     bool
	mu       sync.Mutex
	records  []*journal.Step
	progress []Progress
}

// Holds reports whether the unit at local of step, one of the method's
// steps, is the step whose record the run holds for its seal (a unit a
// fan-out batches never is: its batch records it).
func (h *Held) Holds(steps []*pkg.Step, step *pkg.Step, local string) bool {
	return h.Last && local == step.ID && len(steps) > 0 && steps[len(steps)-1] == step
}

// Hold keeps a settled step's record for the seal.
func (h *Held) Hold(rec *journal.Step) {
	h.mu.Lock()
	h.records = append(h.records, rec)
	h.mu.Unlock()
}

// Take returns the held records and forgets them.
func (h *Held) Take() []*journal.Step {
	h.mu.Lock()
	defer h.mu.Unlock()
	recs := h.records
	h.records = nil
	return recs
}

// Keep holds again records a seal did not commit, for Record to try alone.
func (h *Held) Keep(recs []*journal.Step) {
	h.mu.Lock()
	h.records = recs
	h.mu.Unlock()
}

// ProgressSealed reports a step sealed now, or once the seal commits when
// its record is held for it.
func (h *Held) ProgressSealed(ctx context.Context, p Progress) {
	h.mu.Lock()
	held := len(h.records) > 0
	if held {
		h.progress = append(h.progress, p)
	}
	h.mu.Unlock()
	if !held {
		ReportProgress(ctx, p)
	}
}

// SendProgress reports what was held for the seal, after its commit.
func (h *Held) SendProgress(ctx context.Context) {
	h.mu.Lock()
	ps := h.progress
	h.progress = nil
	h.mu.Unlock()
	for _, p := range ps {
		ReportProgress(ctx, p)
	}
}

// Record records what a run held when it did not reach its seal's commit
// (the seal failed before it): best effort, as the step changed nothing
// and a run without its record runs the step again.
func (h *Held) Record(ctx context.Context, j *journal.Journal) {
	for _, rec := range h.Take() {
		if j.RecordStep(durable(ctx), rec) != nil {
			return
		}
	}
	h.SendProgress(ctx)
}
