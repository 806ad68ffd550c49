package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/plugins/fs"
	"github.com/runxhq/runx/plugins/git"
	"github.com/runxhq/runx/plugins/jsworker"
	"github.com/runxhq/runx/plugins/process"
	"github.com/runxhq/runx/plugins/store"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// servePlugin serves a plugin when the kernel started this test binary as
// one ("plugin serve <name>"): the first-party plugins, and slowread, a
// read that waits until its call is cancelled. It reports whether it did.
func servePlugin() bool {
	if len(os.Args) != 4 || os.Args[1] != "plugin" || os.Args[2] != "serve" {
		return false
	}
	plugins := map[string]func() sdk.Plugin{
		process.Name:        func() sdk.Plugin { return process.New() },
		process.CommandName: func() sdk.Plugin { return process.NewCommand() },
		jsworker.Name:       func() sdk.Plugin { return jsworker.New() },
		fs.Name:             func() sdk.Plugin { return fs.New() },
		git.Name:            func() sdk.Plugin { return git.New() },
		store.Name:          func() sdk.Plugin { return store.New() },
		"slowread":          func() sdk.Plugin { return slowRead{} },
	}
	if p := plugins[os.Args[3]]; p != nil {
		sdk.Serve(p())
	}
	return true
}

// slowRead's one capability, slowread.wait, writes {started} and then waits
// until its call is cancelled, when it writes {cancelled}: a read in flight
// that only a cancel that reaches the plugin ends.
type slowRead struct{}

func (slowRead) Info() sdk.Info {
	return sdk.Info{Name: "slowread", Version: "0.0.1", Capabilities: []sdk.Definition{{
		ID: "slowread.wait", Summary: "Wait until the call is cancelled.", Effect: sdk.EffectRead, Approval: sdk.ApprovalNone,
		InputSchema: json.RawMessage(`{"type":"object","required":["started","cancelled"],"properties":{"started":{"type":"string"},"cancelled":{"type":"string"}}}`),
	}}}
}

func (slowRead) Invoke(ctx context.Context, call *sdk.Call) *sdk.Result {
	var in struct{ Started, Cancelled string }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return sdk.Failed("input_invalid", err.Error())
	}
	_ = os.WriteFile(in.Started, []byte("started"), 0o644)
	<-ctx.Done()
	_ = os.WriteFile(in.Cancelled, []byte("cancelled"), 0o644)
	return sdk.Failed("cancelled", "the read was cancelled")
}

// openKernelWithSlowRead opens a kernel whose plugins this test binary
// serves, slowread among them.
func openKernelWithSlowRead(t testing.TB, workspace string) *run.Kernel {
	t.Helper()
	infos := map[string]func() sdk.Info{"slowread": func() sdk.Info { return slowRead{}.Info() }}
	for name, info := range firstParty {
		infos[name] = info
	}
	k, err := run.Open(context.Background(), run.Options{Workspace: workspace, HomeDir: filepath.Join(workspace, ".home"), Self: self, FirstParty: infos, RunxVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	return k
}
