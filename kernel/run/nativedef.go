package run

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/kernel/host"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// KernelOwner names the kernel as the owner of the tools it answers itself
// (they read run records, which no plugin may hold).
const KernelOwner = "runx-kernel"

// runReadDefinition is run.read's one typed description: what `runx tool
// inspect run.read` shows and what a turn's tool list offers.
var runReadDefinition = sdk.Definition{
	ID:      "run.read",
	Summary: "Read a run's record (runx.run_read.v1): its state, what it waits on, what it was answered, its steps and its events after a cursor. Without run_id it reads the root of the calling run's tree.",
	InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{` +
		`"run_id":{"type":"string","description":"the run to read; default: the root of the calling run"},` +
		`"after":{"type":"string","description":"a cursor a previous read returned; only later events are returned"}}}`),
	OutputSchema: json.RawMessage(`{"type":"object","required":["schema","run_id","state","waiting","answered","steps","events","cursor"]}`),
	Effect:       sdk.EffectRead,
	Approval:     sdk.ApprovalNone,
	Idempotent:   true,
}

// ToolDefinition is a capability's description: the kernel's own for a tool
// it answers itself, otherwise its plugin's Describe answer.
func (k *Kernel) ToolDefinition(ctx context.Context, id string) (*sdk.Definition, host.PluginRef, error) {
	if t := nativeTools[id]; t != nil {
		def := t.def
		return &def, host.PluginRef{Name: KernelOwner, Version: k.Options.RunxVersion}, nil
	}
	return k.Host.Definition(ctx, id)
}
