package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
)

// checkSteps compares expect.steps (the ids of the steps that ran, in order)
// and expect.step_outputs (each step's output) with the run's record.
func checkSteps(ctx context.Context, tc *pkg.TestCase, env *contract.SkillRun, j *journal.Journal) []string {
	exp := tc.Expect
	if exp == nil {
		return nil
	}
	var failures []string
	if exp.Steps != nil {
		var ran []string
		if env.Trace != nil {
			for _, s := range env.Trace.Steps {
				if s.Status != contract.StepSkipped {
					ran = append(ran, s.StepID)
				}
			}
		}
		if strings.Join(ran, ",") != strings.Join(exp.Steps, ",") {
			failures = append(failures, fmt.Sprintf("steps: want [%s], ran [%s]", strings.Join(exp.Steps, ", "), strings.Join(ran, ", ")))
		}
	}
	if len(exp.StepOutputs) > 0 {
		recorded, err := j.Steps(ctx, env.RunID)
		if err != nil {
			return append(failures, "step_outputs: "+err.Error())
		}
		for id, want := range exp.StepOutputs {
			rec := recorded[id]
			if rec == nil || rec.Status != contract.StepSuccess {
				failures = append(failures, fmt.Sprintf("step_outputs.%s: the step produced no output", id))
				continue
			}
			var got any
			_ = json.Unmarshal(rec.Output, &got)
			var msg string
			if want.Mode == pkg.CompareExact {
				msg = matchExact(want.Value, got)
			} else {
				msg = matchSubset("", normalize(want.Value), got)
			}
			if msg != "" {
				failures = append(failures, fmt.Sprintf("step_outputs.%s: %s", id, msg))
			}
		}
	}
	return failures
}
