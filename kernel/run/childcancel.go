package run

import (
	"context"
	"errors"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// callCancelled reports whether a child run's drive ended on its host's
// cancel of the call that started it (call_cancel): stopped between steps,
// or failed because a unit of it, a grandchild at any depth, was cancelled.
// A child that completed before the cancel reached it stays completed.
func callCancelled(ctx context.Context, out *outcome) bool {
	if !errors.Is(context.Cause(ctx), ErrCallCancelled) {
		return false
	}
	return out.state == driveStopped || out.state == driveSealed && out.outcome != seal.OutcomeCompleted
}

// killCancelled makes a cancelled child's outcome killed, sealed with the
// reason cancelled: no later step of it started.
func killCancelled(out *outcome, skill string) {
	out.state, out.outcome, out.reason = driveSealed, seal.OutcomeKilled, seal.ReasonCancelled
	if out.failure == nil || out.failure.Code != errcode.CallCancelled && out.failure.Code != errcode.ChildKilled {
		out.failure = &contract.ErrorBody{Code: errcode.CallCancelled, Message: "child skill " + skill + " was cancelled by its host: no later step started"}
	}
	out.result = nil
}

// committedEffect reports whether a run, or a child of it at any depth,
// settled a unit that may have changed something: a command, a connector
// operation, or a capability whose description declares an effect beyond
// reading. Units that only read, agent turns and gates commit nothing.
func (e *engine) committedEffect(ctx context.Context, runID string) (bool, error) {
	rec, err := e.Journal.GetRun(durable(ctx), runID)
	if err != nil {
		return false, err
	}
	p, err := pkg.Load(rec.PackageDir, pkg.LoadOptions{RunxVersion: e.RunxVersion})
	if err != nil {
		return true, nil // unknown: say it may have, never that it did not
	}
	m := p.Method(rec.Method)
	steps, err := e.Journal.Steps(durable(ctx), runID)
	if err != nil {
		return false, err
	}
	for addr, s := range steps {
		if s.Status != contract.StepSuccess && s.Status != contract.StepFailed {
			continue
		}
		id, _, _ := strings.Cut(strings.SplitN(addr, "[", 2)[0], "/")
		var step *pkg.Step
		if m != nil {
			step = m.Step(id)
		}
		if step == nil {
			return true, nil
		}
		switch step.Kind {
		case pkg.KindAgent, pkg.KindAsk, pkg.KindSkill, pkg.KindModule:
			if strings.Contains(addr, "/") {
				return true, nil // a script's or turn's call: its tool is not the step's
			}
			continue
		case pkg.KindTool:
			if def := definitionOf(ctx, e.Host, step.Tool.Capability); def != nil && (def.Effect == sdk.EffectRead || def.Effect == sdk.EffectNone) && !def.HasRole(sdk.RoleDataOperation) {
				continue
			}
		}
		return true, nil
	}
	children, err := e.Journal.Children(durable(ctx), runID)
	if err != nil {
		return false, err
	}
	for _, c := range children {
		if effect, err := e.committedEffect(ctx, c.RunID); err != nil || effect {
			return effect, err
		}
	}
	return false, nil
}
