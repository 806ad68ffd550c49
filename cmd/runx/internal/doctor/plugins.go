package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/run"
)

// startTimeout bounds each plugin's start and handshake under --plugins.
const startTimeout = 20 * time.Second

// startPlugins starts every compiled-in and pinned plugin through the
// kernel's plugin host, one at a time, as a run's first call would: the
// pinned binary is checked against its pin, the handshake against this
// runx's protocol, and a compiled-in plugin's description against the one
// compiled in. Each gets a line: its version, protocol, capabilities and
// how long the start took, or why it failed. The plugins are stopped when
// the kernel closes.
func startPlugins(f *cli.Factory) []Check {
	k, done, err := f.OpenRead(context.Background())
	if err != nil {
		body := contract.BodyOf(err)
		return []Check{{Check: "plugins", Status: StatusFail, Detail: fmt.Sprintf("the plugin host did not open: %s [%s]", body.Message, body.Code),
			Fix: "the checks above say what is wrong with the home or the project"}}
	}
	defer done()
	names := f.FirstPartyNames()
	if lock, err := host.ReadLock(k.Options.ProjectDir); err == nil {
		names = append(names, lock.Names()...)
	}
	checks := make([]Check, 0, len(names))
	for _, name := range names {
		checks = append(checks, startOne(k, name))
	}
	return checks
}

func startOne(k *run.Kernel, name string) Check {
	c := Check{Check: "start:" + name}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	began := time.Now()
	info, ref, err := k.DescribePlugin(ctx, name)
	took := time.Since(began)
	if err != nil {
		body := contract.BodyOf(err)
		c.Status, c.Detail = StatusFail, fmt.Sprintf("did not start: %s [%s]", body.Message, body.Code)
		c.Fix = "runx tool list shows what each plugin serves; a pinned binary that changed needs runx plugin pin " + name
		return c
	}
	c.Status = StatusOK
	c.Detail = fmt.Sprintf("%s %s, runx.plugin.v%d, pid %d, %d capabilities, started in %d ms",
		info.Name, info.Version, ref.Protocol, ref.Pid, len(info.Capabilities), took.Milliseconds())
	return c
}
