package run

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/script"
	runstep "github.com/runxhq/runx/kernel/run/step"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// scriptPort is the run as kernel/run/script sees it (script.Engine): a
// script step's driver sends the worker its calls and runs the calls it
// asks as units of the run, and its record (script.Log) reads each settled
// request through it.
type scriptPort struct{ rc *runCtx }

// Settled reads a settled request's journal record as drive.go reads any
// step's (settledOf).
func (p scriptPort) Settled(rec *journal.Step) (contract.StepStatus, *contract.ErrorBody, *receipt.ChildRef, error) {
	s, err := settledOf(rec)
	if err != nil {
		return "", nil, nil, err
	}
	if s.ReceiptID != "" {
		return s.Status, s.Failure, &s.Ref, nil
	}
	return s.Status, s.Failure, nil, nil
}

func (p scriptPort) Stopping(ctx context.Context) bool { return stopping(ctx) }

func (p scriptPort) Invoke(ctx context.Context, call *sdk.Call, max int64) (*sdk.Result, *receipt.PluginRef, error) {
	res, ref, err := p.rc.e.Host.Invoke(ctx, call, max)
	var pluginRef *receipt.PluginRef
	if ref.Name != "" {
		pluginRef = &receipt.PluginRef{Name: ref.Name, Version: ref.Version, Protocol: ref.Protocol}
	}
	return res, pluginRef, err
}

func (p scriptPort) AnswerRoom(max int64) (int64, bool) { return runstep.AnswerRoom(p.rc.Budget, max) }

func (p scriptPort) AnswerTooLarge(local string) *contract.ErrorBody {
	return runstep.AnswerTooLarge(p.rc.Budget, local)
}

func (p scriptPort) ChargeAnswer(local string, res *sdk.Result, err error, narrowed bool) *contract.ErrorBody {
	return runstep.ChargeAnswer(p.rc.Budget, local, res, err, narrowed)
}

func (p scriptPort) ChildLimits(step *pkg.Step, n int) error {
	return gate.ChildLimits(p.rc.Base, p.rc.method, step, p.rc.RunDepth, n)
}

func (p scriptPort) Unit(ctx context.Context, call *pkg.Step, address string, input map[string]any, given []receipt.Artifact, level int) script.Result {
	p.give(address, given)
	return scriptResultOf(p.rc.unit(ctx, call, address, input, level))
}

func (p scriptPort) Refuse(ctx context.Context, step *pkg.Step, address string, level int, given []receipt.Artifact, failure *contract.ErrorBody) script.Result {
	p.give(address, given)
	return scriptResultOf(p.rc.runner().SettleNow(ctx, step, address, level, contract.StepRefused, nil, failure, nil))
}

// give keeps, by a unit's address, the artifacts a script's call passed
// by reference in its input, for the unit's receipt (step.Given).
func (p scriptPort) give(address string, a []receipt.Artifact) {
	if len(a) > 0 {
		p.rc.givenArtifacts.Store(address, a)
	}
}

// scriptResultOf carries a unit's result across the port.
func scriptResultOf(r stepRun) script.Result {
	out := script.Result{Refused: r.Refused, Stopped: r.Stopped, Err: r.Err}
	if s := r.Settled; s != nil {
		out.Settled = &script.Settled{Status: s.Status, Output: s.Output, Failure: s.Failure, ReceiptID: s.ReceiptID, Ref: s.Ref}
	}
	for _, w := range r.Waiting {
		out.Waiting = append(out.Waiting, script.Waiting{Request: w.Request, RunID: w.RunID, Local: w.Local})
	}
	return out
}
