// Command runx runs skills under explicit authority, pauses for agents and
// people, and proves every run with signed, verifiable receipts.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/cmd/runx/internal/root"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/skills"
)

func main() {
	// Launcher mode: `runx plugin launch <sha256> <path> [args...]` starts a
	// third-party plugin and outlives it, so what the plugin started ends
	// with it however runx ends (kernel/host/launcher.go).
	if code, ok := host.LaunchMode(os.Args); ok {
		os.Exit(code)
	}
	// Plugin mode first: `runx plugin serve <name>` re-executes this binary as
	// one first-party capability plugin, speaking only the plugin protocol.
	if len(os.Args) == 4 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		os.Exit(int(servePlugin(os.Args[3])))
	}
	// Supervisor mode: `runx process supervise <dir>` is a long-lived
	// process's own supervisor, started by the process plugin in a session
	// of its own; it owns the child and outlives the run.
	if len(os.Args) >= 3 && os.Args[1] == "process" && os.Args[2] == "supervise" {
		os.Exit(superviseProcess(os.Args[3:]))
	}
	os.Exit(int(root.Main(os.Args[1:], cli.StdIO(), firstPartyInfo(), localStore, skills.Core())))
}

func servePlugin(name string) cli.ExitCode {
	newPlugin, ok := firstParty[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "runx: no first-party plugin %q [plugin_not_found]\n", name)
		return cli.ExitUsage
	}
	if os.Getenv("RUNX_PLUGIN_MAGIC_COOKIE") == "" {
		fmt.Fprintln(os.Stderr, "runx: `runx plugin serve` is started by runx itself, not by hand [usage_error]")
		return cli.ExitUsage
	}
	// Serve ends the plugin with its driver (StopAll first), as it does
	// for any plugin built with the sdk.
	p := newPlugin()
	serve(p)
	// Shut down by the kernel: the process groups it supervises end before
	// it does, TERM first and KILL once the grace is over, within the
	// kernel's own wait for a plugin to exit.
	if d, ok := p.(interface{ Drain(time.Duration) }); ok {
		d.Drain(drainGrace)
	}
	return cli.ExitOK
}

// drainGrace is how long a shut-down plugin's processes have between TERM
// and KILL: under the two seconds the kernel waits for a plugin to exit
// before it kills the plugin alone.
const drainGrace = 1500 * time.Millisecond
