package run

import (
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/guard"
)

// guard evaluates a step's `when:` (kernel/run/guard) over the run's
// input, the outputs of its steps so far and run {id, act}.
func (e *engine) guard(step *pkg.Step, sc *scope) (bool, error) {
	return guard.Eval(step, guard.Vars{Input: sc.input, Steps: sc.steps, RunID: sc.runID, Act: sc.act})
}
