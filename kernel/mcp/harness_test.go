package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/plugins/fs"
	"github.com/runxhq/runx/plugins/git"
	"github.com/runxhq/runx/plugins/jsworker"
	"github.com/runxhq/runx/plugins/process"
	"github.com/runxhq/runx/plugins/store"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// self is this test binary. It doubles as runx's first-party plugins:
// the kernel re-executes it ("plugin serve <name>", see servePlugin) as it
// re-executes runx in production, so each plugin is still its own process
// reached over go-plugin, and no runx binary is built.
var self string

func TestMain(m *testing.M) {
	if servePlugin() {
		os.Exit(0)
	}
	var err error
	if self, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// firstParty describes the plugins this test binary serves, as
// cmd/runx/plugins.go does for runx; the kernel starts them from self.
var firstParty = map[string]func() sdk.Info{
	process.Name:        func() sdk.Info { return process.New().Info() },
	process.CommandName: func() sdk.Info { return process.NewCommand().Info() },
	jsworker.Name:       func() sdk.Info { return jsworker.New().Info() },
	fs.Name:             func() sdk.Info { return fs.New().Info() },
	git.Name:            func() sdk.Info { return git.New().Info() },
	store.Name:          func() sdk.Info { return store.New().Info() },
}

func testdata(name string) string {
	abs, _ := filepath.Abs(filepath.Join("testdata", name))
	return abs
}

// openKernel opens a kernel over a fresh workspace.
func openKernel(t testing.TB, workspace string) *run.Kernel {
	t.Helper()
	if workspace == "" {
		workspace = t.TempDir()
	}
	k, err := run.Open(context.Background(), run.Options{Workspace: workspace, HomeDir: filepath.Join(workspace, ".home"), Self: self, FirstParty: firstParty, RunxVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	return k
}

// connect serves opts over k and returns a go-sdk client session on it.
func connect(t testing.TB, k *run.Kernel, opts kmcp.Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	srv, err := kmcp.New(k, opts)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); cancel() })
	return cs
}

// call calls a tool and returns its result and structured content.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &out)
	return res, out
}

// errorCode is the code of an isError result.
func errorCode(t testing.TB, res *mcp.CallToolResult, out map[string]any) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an isError result, got %v", out)
	}
	if e, ok := out["error"].(map[string]any); ok {
		return e["code"].(string)
	}
	if e, ok := out["error"].(map[string]any); ok {
		return e["code"].(string)
	}
	return ""
}

func str(v any) string { s, _ := v.(string); return s }
