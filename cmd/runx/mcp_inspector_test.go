package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// inspectorPackage is the official MCP inspector, pinned: its CLI mode is
// the real client CI drives the built binary with.
const inspectorPackage = "@modelcontextprotocol/inspector@2.12.0"

// inspectorBin is the inspector's executable in npx's cache, resolved (and
// downloaded on first use) once per test binary: each request then starts
// the inspector alone, without npx resolving the package again.
var inspectorBin = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("npx", "-y", "-p", inspectorPackage, "-c", "command -v mcp-inspector").Output()
	if err != nil {
		return "", fmt.Errorf("npx could not fetch %s: %w", inspectorPackage, err)
	}
	return strings.TrimSpace(string(out)), nil
})

// inspector runs one inspector CLI request against `runx <args...>` in the
// workspace and returns its JSON answer and exit code.
func (w *workspace) inspector(method string, flags []string, args ...string) (map[string]any, int, string) {
	w.t.Helper()
	bin, err := inspectorBin()
	if err != nil {
		w.t.Fatal(err)
	}
	cmdline := []string{"--cli",
		"-e", "RUNX_HOME=" + filepath.Join(w.dir, ".home"), "-e", "NO_COLOR=1", "--cwd", w.dir,
		"--method", method}
	cmdline = append(cmdline, flags...)
	// -- ends the inspector's flags (--tool-arg takes several values), so
	// everything after it is the server's command line.
	cmdline = append(cmdline, "--", filepath.Join(binDir, "runx"))
	cmdline = append(cmdline, args...)
	c := exec.Command(bin, cmdline...)
	c.Dir = w.dir
	// The inspector keeps its catalog where it is told, not in the user's home.
	c.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(w.dir, ".inspector.json"), "NO_UPDATE_NOTIFIER=1")
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err = c.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		w.t.Fatalf("inspector: %v", err)
	}
	// A result is printed on stdout; an error the inspector raises itself
	// (an unknown tool, a failed connection) on stderr, as one JSON line.
	src := &out
	if out.Len() == 0 {
		src = bytes.NewBuffer(errOut.Bytes())
	}
	var doc map[string]any
	if err := json.NewDecoder(src).Decode(&doc); err != nil {
		w.t.Fatalf("inspector %s printed no JSON (exit %d): %v\nstderr: %s", method, code, err, errOut.String())
	}
	return doc, code, errOut.String()
}

// structured is a tool result's structured content.
func structured(res map[string]any) map[string]any {
	m, _ := res["structuredContent"].(map[string]any)
	return m
}

// TestMCPInspector drives `runx mcp` with the official inspector's CLI:
// tools/list (held to its strict schema portability checks), a call that
// seals with a receipt that verifies, a call that pauses, a bad argument,
// an unknown tool, and `runx mcp --run` listing and completing the turn so
// the run seals. Under CI=true a missing npx fails the test.
func TestMCPInspector(t *testing.T) {
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npx is not installed; CI drives runx mcp with the MCP inspector through npx (install Node.js)")
		}
		t.Skip("npx is not installed: install Node.js to drive runx mcp with the MCP inspector")
	}
	repo, _ := filepath.Abs("../..")
	files := map[string]string{}
	for _, name := range []string{"review/SKILL.md", "review/run.yaml", "review/gather.mjs", "review/publish.mjs"} {
		raw, err := os.ReadFile(filepath.Join(repo, "kernel/mcp/testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(raw)
	}
	w := newWorkspace(t, files)
	hello := filepath.Join(repo, "examples/hello-world")

	list, code, stderr := w.inspector("tools/list", []string{"--strict"}, "mcp", hello, "./review")
	if code != 0 {
		t.Fatalf("tools/list --strict exited %d: %v\n%s", code, list, stderr)
	}
	names := map[string]bool{}
	for _, tl := range list["tools"].([]any) {
		names[tl.(map[string]any)["name"].(string)] = true
	}
	for _, want := range []string{"hello-world", "review", "turn_list", "turn_status", "turn_read", "turn_call", "turn_complete", "call_cancel"} {
		if !names[want] {
			t.Errorf("tools/list has no %s: %v", want, names)
		}
	}

	sealed, code, _ := w.inspector("tools/call", []string{"--tool-name", "hello-world", "--tool-arg", "message=hi"}, "mcp", hello)
	env := structured(sealed)
	if code != 0 || env["status"] != "sealed" || env["outcome"] != "completed" {
		t.Fatalf("sealing call: %d %v", code, sealed)
	}
	if doc, vcode := w.run("", nil, "verify", env["receipt_id"].(string), "--json"); vcode != 0 || doc["status"] != "verified" {
		t.Fatalf("the call's receipt does not verify: %d %v", vcode, doc)
	}

	paused, code, _ := w.inspector("tools/call", []string{"--tool-name", "review", "--tool-arg", "topic=release"}, "mcp", "./review")
	env = structured(paused)
	runID, _ := env["run_id"].(string)
	if code != 0 || env["status"] != "needs_agent" || runID == "" {
		t.Fatalf("pausing call: %d %v", code, paused)
	}

	bad, code, _ := w.inspector("tools/call", []string{"--tool-name", "hello-world", "--tool-arg", "mesage=hi"}, "mcp", hello)
	if code == 0 || bad["isError"] != true || !strings.Contains(toJSON(bad), "mesage") {
		t.Errorf("bad argument: exit %d %v", code, bad)
	}
	unknown, code, _ := w.inspector("tools/call", []string{"--tool-name", "nosuch"}, "mcp", hello)
	if code == 0 || !strings.Contains(toJSON(unknown), "nosuch") {
		t.Errorf("unknown tool: exit %d %v", code, unknown)
	}

	turns, code, _ := w.inspector("tools/call", []string{"--tool-name", "turn_list"}, "mcp", "--run", runID)
	if code != 0 || !strings.Contains(toJSON(turns), `"address":"draft"`) {
		t.Fatalf("turn_list: %d %v", code, turns)
	}
	done, code, _ := w.inspector("tools/call", []string{"--tool-name", "turn_complete", "--tool-arg", "turn=draft", "--tool-arg", `output={"summary":"ship it"}`}, "mcp", "--run", runID)
	env = structured(done)
	if code != 0 || env["status"] != "sealed" || env["outcome"] != "completed" || env["run_id"] != runID {
		t.Fatalf("turn_complete: %d %v", code, done)
	}
	if doc, vcode := w.run("", nil, "verify", env["receipt_id"].(string), "--json"); vcode != 0 || doc["status"] != "verified" {
		t.Fatalf("the sealed run's receipt does not verify: %d %v", vcode, doc)
	}
}

func toJSON(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
