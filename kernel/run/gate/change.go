package gate

import (
	"context"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Capabilities is what a gate's decision reads of the capabilities a run
// calls: the port the engine satisfies (kernel/run/gateport.go).
type Capabilities interface {
	// Operation is the description of the capability an operation step
	// calls, or nil where none describes it.
	Operation(ctx context.Context, step *pkg.Step) *sdk.Definition
	// Definition is a capability's description from its plugin, or nil.
	Definition(ctx context.Context, id string) *sdk.Definition
	// Native reports a tool the kernel answers itself.
	Native(id string) bool
}

// ChangeOf is what a step would change, for the floor: a process tool runs
// its exact argv; a capability changes what its effect class says; modules,
// gates and reads change nothing; a skill's child decides for itself.
func ChangeOf(ctx context.Context, caps Capabilities, step *pkg.Step) authority.Change {
	switch step.Kind {
	case pkg.KindCommand:
		c := step.Tool.Command
		return authority.Change{Kind: authority.ChangeCommand, Argv: append([]string{c.Command}, c.Args...)}
	case pkg.KindOperation:
		def := caps.Operation(ctx, step)
		if c, ok := PrivateChange(def, step, step.Inputs); ok {
			// Before its inputs resolve, only a said: stream written as a
			// literal is known to change nothing.
			return c
		}
		switch {
		case def != nil && (def.Effect == sdk.EffectNone || def.Effect == sdk.EffectRead):
			return authority.Change{Kind: authority.ChangeNone}
		case def != nil && def.HasRole(sdk.RoleDataOperation):
			// A data operation writes a package's own store state, which is
			// exempt unless its step carries an approval.
			return authority.Change{Kind: authority.ChangeStoreWrite, Operation: step.Operation.Ref, OwnStore: true, OwnApproval: step.Operation.Approval != nil}
		}
		// Any other connector write (or an unknown one) is an operation
		// write, failing closed.
		// An operation whose approval its effect owns (its step asks, or
		// its connector requires one) is gated there, once.
		own := step.Operation.Approval != nil || def != nil && def.Approval == sdk.ApprovalRequired
		return authority.Change{Kind: authority.ChangeOperationWrite, Operation: step.Operation.Ref, OwnApproval: own}
	case pkg.KindTool:
		if caps.Native(step.Tool.Capability) {
			return authority.Change{Kind: authority.ChangeNone}
		}
		switch effect(ctx, caps, step.Tool.Capability) {
		case sdk.EffectNone, sdk.EffectRead:
			return authority.Change{Kind: authority.ChangeNone}
		case sdk.EffectProcess:
			return authority.Change{Kind: authority.ChangeCommand}
		default:
			// write, or unknown: fail closed as an edit of unknown paths.
			return authority.Change{Kind: authority.ChangeEdit}
		}
	}
	return authority.Change{Kind: authority.ChangeNone}
}

// CallChange is ChangeOf for a call whose inputs have resolved: they decide
// what a call on a private connector changes (PrivateChange).
func CallChange(ctx context.Context, caps Capabilities, step *pkg.Step, inputs map[string]any) authority.Change {
	if step.Kind == pkg.KindOperation {
		if c, ok := PrivateChange(caps.Operation(ctx, step), step, inputs); ok {
			return c
		}
	}
	return ChangeOf(ctx, caps, step)
}

// effect is a capability's declared effect, a write where none is
// declared.
func effect(ctx context.Context, caps Capabilities, id string) string {
	if def := caps.Definition(ctx, id); def != nil {
		return def.Effect
	}
	return sdk.EffectWrite
}

// StoreWrite reports whether a step's capability describes itself as a
// store write: role data.operation with an effect other than read or none,
// whether the step names it as an operation or as a tool.
func StoreWrite(ctx context.Context, caps Capabilities, step *pkg.Step) bool {
	var def *sdk.Definition
	switch step.Kind {
	case pkg.KindOperation:
		def = caps.Operation(ctx, step)
	case pkg.KindTool:
		def = ToolDefinition(ctx, caps, step)
	}
	return def != nil && def.HasRole(sdk.RoleDataOperation) && def.Effect != sdk.EffectRead && def.Effect != sdk.EffectNone
}

// ToolDefinition is the description of a tool step's capability, or nil.
func ToolDefinition(ctx context.Context, caps Capabilities, step *pkg.Step) *sdk.Definition {
	if step.Kind != pkg.KindTool || step.Tool == nil || step.Tool.Capability == "" {
		return nil
	}
	return caps.Definition(ctx, step.Tool.Capability)
}

// PrivateChange is what a call on a private connector would change, from
// its inputs: a read, or an append to a said: stream (the person's exact
// words, no change to the workspace or at a provider), changes nothing;
// any other append, an observed: stream's included, is a store write that
// is not the package's own. ok is false for any other step.
func PrivateChange(def *sdk.Definition, step *pkg.Step, inputs map[string]any) (authority.Change, bool) {
	if def == nil || !def.HasRole(sdk.RolePrivateData) || step.Kind != pkg.KindOperation || step.Operation == nil {
		return authority.Change{}, false
	}
	if def.Effect == sdk.EffectNone || def.Effect == sdk.EffectRead {
		return authority.Change{Kind: authority.ChangeNone}, true
	}
	if resource, _ := inputs["resource"].(string); strings.HasPrefix(resource, sdk.PrivateSaid) {
		if _, _, ok := privateStream(resource); ok {
			return authority.Change{Kind: authority.ChangeNone}, true
		}
	}
	return authority.Change{Kind: authority.ChangeStoreWrite, Operation: step.Operation.Ref, OwnApproval: step.Operation.Approval != nil}, true
}
