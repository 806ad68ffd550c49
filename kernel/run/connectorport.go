package run

import (
	"context"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// moneyPort is the run as kernel/run/connector's money sees it
// (connector.Run).
type moneyPort struct{ rc *runCtx }

// money is the run's side of its tree's money limit.
func (rc *runCtx) money() connector.Money {
	return connector.Money{Run: moneyPort{rc}, Journal: rc.e.Journal, Spend: rc.Spend}
}

func (p moneyPort) Limits(step *pkg.Step) authority.Limits { return p.rc.effective(step).Limits }

func (p moneyPort) CallName(step *pkg.Step) string { return callName(step) }

func (p moneyPort) Address(local string) string { return p.rc.address(local) }

func (p moneyPort) Actor() string { return p.rc.actor() }

// Definition is the description of the capability a step calls, or nil for
// a step that calls none (a module, a command, a gate).
func (p moneyPort) Definition(ctx context.Context, step *pkg.Step) *sdk.Definition {
	rc := p.rc
	switch {
	case step.Kind == pkg.KindOperation && step.Operation != nil:
		return rc.operationDefinition(ctx, step)
	case step.Kind == pkg.KindTool && step.Tool != nil && step.Tool.Capability != "" && native.Lookup(step.Tool.Capability) == nil:
		return rc.e.definition(ctx, step.Tool.Capability)
	}
	return nil
}
