package run

import runstep "github.com/runxhq/runx/kernel/run/step"

// A run's result and a step's outputs are held to their declared contracts
// by the step runner (kernel/run/step/outputs.go).
var (
	selectResult = runstep.SelectResult
	checkOutputs = runstep.CheckOutputs
	describe     = runstep.Describe
)
