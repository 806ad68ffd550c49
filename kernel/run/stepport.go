package run

import (
	"github.com/runxhq/runx/kernel/pkg"
	runstep "github.com/runxhq/runx/kernel/run/step"
)

// unitRun is the run rc as kernel/run/step's runner takes it.
func unitRun(rc *runCtx) *runstep.Run {
	return &runstep.Run{ID: rc.rec.RunID, Journal: rc.e.Journal, Fresh: rc.fresh, Decisions: rc.Decisions, Clock: rc.e.Clock, Tree: rc.Tree}
}

// bindWait binds a wait of the step runner's as a request the run waits
// on.
func bindWait(rc *runCtx, step *pkg.Step, w *runstep.Wait) (*pending, error) {
	req, err := rc.bindRequest(step, w.Local, w.Kind, w.Payload)
	if err != nil {
		return nil, err
	}
	return &pending{Request: req, runID: rc.rec.RunID, local: w.Local}, nil
}
