package run

import (
	"context"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// gatePort is the run as kernel/run/gate's decisions see it
// (gate.Capabilities), and as the step runner picks an effect-free run
// (step.Capabilities): the descriptions of what the run calls.
type gatePort struct{ rc *runCtx }

func (p gatePort) Operation(ctx context.Context, step *pkg.Step) *sdk.Definition {
	return p.rc.operationDefinition(ctx, step)
}

func (p gatePort) Definition(ctx context.Context, id string) *sdk.Definition {
	return definitionOf(ctx, p.rc.e.Host, id)
}

func (p gatePort) Native(id string) bool { return native.Lookup(id) != nil }

// ParseAuthority reads a host-stated authority; empty means none stated.
func ParseAuthority(raw []byte) (*authority.Authority, error) { return gate.ParseAuthority(raw) }
