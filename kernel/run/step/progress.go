package step

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
)

// Progress is what a run reports as it goes: a step started, a step sealed.
// A front that shows progress (runx mcp, when its client sends a progress
// token) passes a callback with WithProgress; nothing is reported otherwise.
type Progress struct {
	Event   string              `json:"event"` // step_started | step_sealed
	RunID   string              `json:"run_id"`
	Address string              `json:"address"`
	Status  contract.StepStatus `json:"status,omitempty"` // a sealed step's status
}

// Progress events.
const (
	ProgressStepStarted = "step_started"
	ProgressStepSealed  = "step_sealed"
)

type progressKey struct{}

// WithProgress returns a context whose runs report their progress to fn.
// fn is called on the driving goroutine and must not block for long.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress reports p to the callback ctx carries, if any.
func ReportProgress(ctx context.Context, p Progress) {
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		fn(p)
	}
}
