package jsworker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
)

// helloWorldCall is the js.module call the kernel makes for the one step of
// examples/hello-world (kernel/run/module.go's moduleDispatch): the
// package's JavaScript files, the step's inputs, an empty environment and
// the default timeout, as canonical JSON.
func helloWorldCall(tb testing.TB, message string) *plugin.Call {
	tb.Helper()
	dir := filepath.Join("..", "..", "examples", "hello-world")
	files := map[string]string{}
	for _, name := range []string{"compose.mjs", "greeting.mjs"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		files[name] = string(raw)
	}
	raw, err := json.Marshal(map[string]any{
		"entry":       "compose.mjs",
		"files":       files,
		"input":       map[string]any{"message": message, "name": "world"},
		"environment": map[string]string{},
		"timeout_ms":  5000,
	})
	if err != nil {
		tb.Fatal(err)
	}
	input, err := canon.CanonicalJSON(raw)
	if err != nil {
		tb.Fatal(err)
	}
	return &plugin.Call{Capability: Capability, Context: plugin.Context{CallID: "bench"}, Input: input}
}

// BenchmarkHelloWorldModule is the worker's share of one BenchmarkMCPSession
// call, in process: js.module invoked as the kernel invokes it for
// examples/hello-world, on a warm program cache.
func BenchmarkHelloWorldModule(b *testing.B) {
	p := New()
	setupWorkerProcess(b)
	call := helloWorldCall(b, "m")
	b.ReportAllocs()
	for b.Loop() {
		res := p.Invoke(context.Background(), call)
		if res.Status != plugin.StatusOK {
			b.Fatalf("%s %s: %s", res.Status, res.Code, res.Message)
		}
	}
}

// BenchmarkHelloWorldModuleServed is BenchmarkHelloWorldModule through the
// plugin SDK's gRPC service (in memory), to tell the worker's own cost from
// the serve path's.
func BenchmarkHelloWorldModuleServed(b *testing.B) {
	c := plugintest.Serve(b, New())
	call := helloWorldCall(b, "m")
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.Client.Invoke(context.Background(), call, 0)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != plugin.StatusOK {
			b.Fatalf("%s %s: %s", res.Status, res.Code, res.Message)
		}
	}
}
