package run

import (
	"context"

	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// pluginsFor names the plugins a method's own steps will call, found as the
// steps find them: by role for modules, scripts and commands, by id for
// tools and operations. The kernel's own tools start nothing.
func (e *engine) pluginsFor(ctx context.Context, m *pkg.Method) []string {
	seen := map[string]bool{}
	var names []string
	add := func(id string) {
		if n := host.PluginFor(id); id != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	role := func(r string) {
		if id, err := e.roleCapability(ctx, r); err == nil {
			add(id)
		}
	}
	for _, s := range m.Steps {
		switch s.Kind {
		case pkg.KindModule:
			role(sdk.RoleModule)
		case pkg.KindScript:
			role(sdk.RoleScript)
		case pkg.KindCommand:
			role(sdk.RoleCommand)
		case pkg.KindOperation:
			if id := operationCapability(s.Operation); definitionOf(ctx, e.Host, id) != nil {
				add(id)
			} else {
				// A connector manifest's operation: sent by the
				// connector.request role.
				role(sdk.RoleConnectorRequest)
			}
		case pkg.KindTool:
			if native.Lookup(s.Tool.Capability) == nil {
				add(s.Tool.Capability)
			}
		}
	}
	return names
}

// prestart starts the plugins a method needs while the kernel prepares the
// run, when the host can.
func (e *engine) prestart(ctx context.Context, m *pkg.Method) {
	if p, ok := e.Host.(interface {
		Prestart(context.Context, ...string)
	}); ok {
		p.Prestart(ctx, e.pluginsFor(ctx, m)...)
	}
}
