package conformance_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/conformance"
	"github.com/runxhq/runx/sdk/plugin"
)

// bin holds the built runx binary (whose `runx plugin serve <name>` serves
// each first-party plugin) and the example third-party plugin.
var bin string

// binEnv names an already built bin directory: the suite's self-test runs
// this test binary again and must not build everything again.
const binEnv = "RUNX_CONFORMANCE_BIN"

func TestMain(m *testing.M) {
	if dir := os.Getenv(binEnv); dir != "" {
		bin = dir
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "runx-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	for pkg, name := range map[string]string{"../../cmd/runx": "runx", "../examples/echo": "runx-plugin-echo", "../examples/postbox": "runx-plugin-postbox", "./testdata/bad": "runx-plugin-bad"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", pkg, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func firstParty(name string) conformance.Binary {
	return conformance.Binary{Path: filepath.Join(bin, "runx"), Args: []string{"plugin", "serve", name}}
}

func TestFirstPartyPlugins(t *testing.T) {
	for name, opts := range map[string][]conformance.Option{
		"fs":       {conformance.Payload("fs.write", func(s string) any { return map[string]any{"path": "big.txt", "content": s} }, false)},
		"git":      nil,
		"process":  nil,
		"command":  nil,
		"artifact": nil,
		"js":       {conformance.Payload("js.module", func(s string) any { return map[string]any{"module": "m.mjs", "input": map[string]string{"s": s}} }, false)},
		"store":    {conformance.Payload("store/events.append", func(s string) any { return map[string]any{"stream": "s", "event": map[string]string{"data": s}} }, false)},
		"http":     {conformance.Payload("http.request", func(s string) any { return map[string]any{"text": s} }, false)},
	} {
		t.Run(name, func(t *testing.T) { conformance.RunPlugin(t, firstParty(name), opts...) })
	}
}

func TestExampleEcho(t *testing.T) {
	conformance.RunPlugin(t, conformance.Binary{Path: filepath.Join(bin, "runx-plugin-echo")},
		conformance.Payload("echo.shout", func(s string) any { return map[string]string{"message": s} }, true))
}

// The third-party connector example passes the suite every plugin author
// runs: its operations' descriptions, costs included, are well formed.
func TestExamplePostbox(t *testing.T) {
	conformance.RunPlugin(t, conformance.Binary{Path: filepath.Join(bin, "runx-plugin-postbox")})
}

// The suite's own checks hold for the SDK's plugin.
func TestBinaryName(t *testing.T) {
	if plugin.BinaryName("echo") != filepath.Base(filepath.Join(bin, "runx-plugin-echo")) {
		t.Fatal("the example is not named by the naming rule")
	}
}
