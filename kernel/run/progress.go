package run

import (
	"context"

	runstep "github.com/runxhq/runx/kernel/run/step"
)

// Progress is what a run reports as it goes (kernel/run/step): a step
// started, a step sealed. A front that shows progress passes a callback
// with WithProgress; nothing is reported otherwise.
type Progress = runstep.Progress

// Progress events.
const (
	ProgressStepStarted = runstep.ProgressStepStarted
	ProgressStepSealed  = runstep.ProgressStepSealed
	ProgressItemSettled = runstep.ProgressItemSettled
	ProgressCallStarted = runstep.ProgressCallStarted
)

// WithProgress returns a context whose runs report their progress to fn.
// fn is called on the driving goroutine, or for a fan-out's items one call
// at a time from the goroutine that settled the item; it must not block for
// long.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return runstep.WithProgress(ctx, fn)
}

type drivingKey struct{}

// WithDriving returns a context whose root runs report their id to fn once
// this process drives them (the record exists and the driver claim is
// held), so a front interrupted mid-run can name the run it leaves and the
// command that continues it.
func WithDriving(ctx context.Context, fn func(runID string)) context.Context {
	return context.WithValue(ctx, drivingKey{}, fn)
}

func reportDriving(ctx context.Context, runID string) {
	if fn, ok := ctx.Value(drivingKey{}).(func(string)); ok && fn != nil {
		fn(runID)
	}
}
