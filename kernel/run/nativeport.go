package run

import (
	"context"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// nativeRun is the run a kernel-owned tool is called in, as the tool sees
// it (native.Run): the engine's side of the port, so kernel/run/native
// never imports the engine.
type nativeRun struct{ rc *runCtx }

func (n nativeRun) RunID() string       { return n.rc.rec.RunID }
func (n nativeRun) ParentRunID() string { return n.rc.rec.ParentRunID }
func (n nativeRun) Now() time.Time      { return n.rc.e.Clock() }

func (n nativeRun) Reach(step *pkg.Step) authority.Reach {
	return gate.Effective(n.rc.Base, n.rc.method, step).Reach
}

func (n nativeRun) ReadRun(ctx context.Context, runID, after string) (any, error) {
	return readModel(n.rc.e).ReadRun(ctx, runID, after)
}

func (n nativeRun) Records() *native.Records {
	e := n.rc.e
	return &native.Records{Journal: e.Journal, Store: e.Store, HomeDir: e.HomeDir, Signer: e.Signer}
}

// ToolDefinition is a capability's description: the kernel's own for a tool
// it answers itself, otherwise its plugin's Describe answer.
func (k *Kernel) ToolDefinition(ctx context.Context, id string) (*sdk.Definition, host.PluginRef, error) {
	if t := native.Lookup(id); t != nil {
		def := t.Definition()
		return &def, host.PluginRef{Name: native.KernelOwner, Version: k.Options.RunxVersion}, nil
	}
	return k.host.Definition(ctx, id)
}
