package run

import (
	"context"

	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
)

// pluginsFor names the plugins a method's own steps will call.
func pluginsFor(m *pkg.Method) []string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, s := range m.Steps {
		switch s.Kind {
		case pkg.KindModule, pkg.KindScript:
			add(host.PluginFor(capabilityModule))
		case pkg.KindCommand:
			add(host.PluginFor(capabilityProcess))
		case pkg.KindOperation:
			add(StoreConnector)
		case pkg.KindTool:
			if nativeTools[s.Tool.Capability] == nil {
				add(host.PluginFor(s.Tool.Capability))
			}
		}
	}
	return names
}

// prestart starts the plugins a method needs while the kernel prepares the
// run, when the host can.
func (e *Engine) prestart(ctx context.Context, m *pkg.Method) {
	if p, ok := e.Host.(interface {
		Prestart(context.Context, ...string)
	}); ok {
		p.Prestart(ctx, pluginsFor(m)...)
	}
}
