package run

import (
	"context"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// connectorPort is the run as kernel/run/connector sees it (connector.Run).
type connectorPort struct{ rc *runCtx }

// money is the run's side of its tree's money limit.
func (rc *runCtx) money() connector.Money {
	return connector.Money{Run: connectorPort{rc}, Journal: rc.e.Journal, Spend: rc.Spend}
}

// writes carries the run's connector writes to finality.
func (rc *runCtx) writes() connector.Writes {
	return connector.Writes{Run: connectorPort{rc}, Journal: rc.e.Journal}
}

func (p connectorPort) Limits(step *pkg.Step) authority.Limits {
	return gate.Effective(p.rc.Base, p.rc.method, step).Limits
}

func (p connectorPort) CallName(step *pkg.Step) string { return callName(step) }

func (p connectorPort) Address(local string) string { return p.rc.Address(local) }

func (p connectorPort) Actor() string { return p.rc.actor() }

// Definition is the description of the capability a step calls, or nil for
// a step that calls none (a module, a command, a gate).
func (p connectorPort) Definition(ctx context.Context, step *pkg.Step) *sdk.Definition {
	rc := p.rc
	switch {
	case step.Kind == pkg.KindOperation && step.Operation != nil:
		return rc.operationDefinition(ctx, step)
	case step.Kind == pkg.KindTool && step.Tool != nil && step.Tool.Capability != "" && native.Lookup(step.Tool.Capability) == nil:
		return definitionOf(ctx, rc.e.Host, step.Tool.Capability)
	}
	return nil
}

func (p connectorPort) RunID() string { return p.rc.rec.RunID }

func (p connectorPort) Now() time.Time { return p.rc.e.Clock() }

func (p connectorPort) Hook(point string) { p.rc.e.hook(point) }

func (p connectorPort) Execute(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, body *receipt.Body) (any, *contract.ErrorBody, contract.StepStatus) {
	return p.rc.execute(ctx, step, local, inputs, body)
}

func (p connectorPort) Decision(local string) *journal.Decision { return p.rc.Decisions[local] }

func (p connectorPort) BindRequest(step *pkg.Step, local string, kind contract.RequestKind, payload map[string]any) (contract.Request, error) {
	return p.rc.asked(step, local).Bind(kind, payload)
}

func (p connectorPort) Answer(stepID string, mo *connector.ManifestOp, raw []byte) (any, *contract.ErrorBody) {
	return connectorAnswer(stepID, mo, raw)
}

// addedConnectors is where the engine's runs find the connectors runx added
// to the project, and the home whose trust store verifies registry installs.
func (e *engine) addedConnectors() connector.Project {
	return connector.Project{Dir: e.ProjectDir, Home: e.HomeDir}
}
