package step

import (
	"context"
	"time"

	"github.com/runxhq/runx/kernel/contract"
)

// Progress is what a run reports as it goes: a step started, its call sent
// and the deadline it waits under, a fan-out's item settled (Done of
// Total), a step sealed.
// A front that shows progress (runx mcp, when its client sends a progress
// token) passes a callback with WithProgress; nothing is reported otherwise.
type Progress struct {
	Event   string              `json:"event"` // step_started | step_sealed
	RunID   string              `json:"run_id"`
	Address string              `json:"address"`
	Status  contract.StepStatus `json:"status,omitempty"` // a sealed step's status
	// Done and Total count a fan-out's items settled so far (item_settled).
	Done  int `json:"done,omitempty"`
	Total int `json:"total,omitempty"`
	// Deadline is when a call sent waits no longer (call_started).
	Deadline time.Time `json:"deadline,omitzero"`
}

// Progress events.
const (
	ProgressStepStarted = "step_started"
	ProgressStepSealed  = "step_sealed"
	ProgressItemSettled = "item_settled"
	ProgressCallStarted = "call_started"
)

type progressKey struct{}

// WithProgress returns a context whose runs report their progress to fn.
// fn is called on the driving goroutine, or for a fan-out's items one call
// at a time from the goroutine that settled the item; it must not block for
// long.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress reports p to the callback ctx carries, if any.
func ReportProgress(ctx context.Context, p Progress) {
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		fn(p)
	}
}
