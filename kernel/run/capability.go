package run

import (
	"context"
	"path/filepath"
	"sort"

	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/wslock"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The kernel knows a capability only by its plugin's description: what it
// changes (effect), which inputs name workspace paths (path_inputs), which
// input is an argv (argv_input), whether it previews and recovers, and the
// roles it is invoked for. Nothing here names a capability, plugin or
// adapter; everything follows from the definition.

// definitionOf is a capability's description as the host's plugins give
// it, or nil when no plugin serves it. It asks the host, not the engine.
func definitionOf(ctx context.Context, host Invoker, id string) *sdk.Definition {
	def, _, err := host.Definition(ctx, id)
	if err != nil {
		return nil
	}
	return def
}

// roleCapability is the capability id the kernel invokes for a role.
func (e *engine) roleCapability(ctx context.Context, role string) (string, error) {
	c, err := e.Host.RoleCapability(ctx, role)
	if err != nil {
		return "", err
	}
	return c.Definition.ID, nil
}

// lockModeOf is the workspace lock a call of def takes, from its effect
// class alone: none takes nothing, read shares the lock, write and process
// hold it alone. A data operation acts on its bound source, which keeps its
// own order (expected versions), not on the workspace, so it takes nothing;
// an unknown capability fails closed to exclusive.
func lockModeOf(def *sdk.Definition) wslock.Mode {
	if def == nil {
		return wslock.Exclusive
	}
	if def.HasRole(sdk.RoleDataOperation) {
		return 0
	}
	switch def.Effect {
	case sdk.EffectNone:
		return 0
	case sdk.EffectRead:
		return wslock.Shared
	}
	return wslock.Exclusive
}

// pathsAt returns the non-empty strings an RFC 6901 pointer names in v,
// where a "*" segment stands for every item of an array.
func pathsAt(v any, pointer string) []string {
	var out []string
	for _, x := range gate.PointerValues(v, pointer) {
		if s, ok := x.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// declaredPaths are the cleaned, slash-separated paths a call's input names
// through def's path inputs of the given roles, sorted and unique.
func declaredPaths(def *sdk.Definition, input any, roles ...string) []string {
	if def == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, pi := range def.PathInputs {
		if len(roles) > 0 && !containsRole(roles, pi.Role) {
			continue
		}
		for _, p := range pathsAt(input, pi.Pointer) {
			p = filepath.ToSlash(filepath.Clean(p))
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

func containsRole(roles []string, r string) bool {
	for _, x := range roles {
		if x == r {
			return true
		}
	}
	return false
}

// changesFiles reports whether def declares an input path it writes or
// deletes: such a call is a file change for the floor.
func changesFiles(def *sdk.Definition) bool {
	if def == nil {
		return false
	}
	for _, pi := range def.PathInputs {
		if pi.Role == sdk.PathWrite || pi.Role == sdk.PathDelete {
			return true
		}
	}
	return false
}
