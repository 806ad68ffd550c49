package run

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/script"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// script runs a script step: the engine readies its worker (the package's
// JavaScript and the capability that runs scripts), kernel/run/script's
// driver drives it by suspend and replay (script.Driver), carrying out
// each request it waits on as a unit of the run (scriptport.go), and the
// engine settles the step as the driver decides.
func (rc *runCtx) script(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, level int) stepRun {
	files, err := rc.modules.load()
	if err != nil {
		return rc.runner().SettleNow(ctx, step, local, level, contract.StepRefused, nil, contract.BodyOf(err), nil)
	}
	capability, err := rc.e.roleCapability(ctx, sdk.RoleScript)
	if err != nil {
		return rc.runner().SettleNow(ctx, step, local, level, contract.StepRefused, nil, contract.BodyOf(err), nil)
	}
	d := script.Driver{
		Engine: scriptPort{rc}, RunID: rc.rec.RunID, ProjectDir: rc.e.ProjectDir, Journal: rc.e.Journal,
		Files: files, Capability: capability,
		Limits:      script.Limits{Timeout: ModuleDefaultTimeout, HostGrace: moduleHostGrace, MaxOutputBytes: moduleMaxOutputBytes},
		Concurrency: rc.e.concurrencyFor(0),
		Clock:       rc.e.Clock,
	}
	r := d.Drive(ctx, step, local, inputs, level)
	s := r.Settle
	if s == nil {
		// Waiting, refused, stopped or an error: what the driver came to,
		// carried back across the port, the script's own waits bound as
		// requests first.
		out := stepRun{Refused: r.Refused, Stopped: r.Stopped, Err: r.Err}
		for _, w := range r.Waits {
			req, err := rc.asked(step, w.Local).Bind(contract.RequestWait, map[string]any{"id": rc.Address(w.Local), "until": w.Until})
			if err != nil {
				return stepRun{Err: err}
			}
			out.Waiting = append(out.Waiting, pending{Request: req, RunID: rc.rec.RunID, Local: w.Local})
		}
		for _, w := range r.Waiting {
			out.Waiting = append(out.Waiting, pending{Request: w.Request, RunID: w.RunID, Local: w.Local})
		}
		return out
	}
	if s.Ran == nil {
		return rc.runner().SettleNow(ctx, step, local, level, s.Status, nil, s.Failure, nil)
	}
	output, failure, status := s.Output, s.Failure, s.Status
	if failure == nil {
		if output, err = checkOutputs(step.ID, step.Outputs, output); err != nil {
			failure, status = contract.BodyOf(err), contract.StepFailed
		}
	}
	body := rc.runner().StepBody(step, local)
	body.Capability, body.Execution, body.InputsDigest = capability, execModule, mustDigest(s.Ran.Inputs)
	body.Runtime.Plugin = s.Ran.Plugin
	withArtifacts(&body, s.Ran.Given...)
	withArtifacts(&body, s.Ran.Read...)
	return rc.runner().Settle(ctx, step, local, body, status, output, failure, s.Refs)
}
