package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM to `runx mcp` stops the driver of a call in flight as it stops
// `runx skill`: the command in flight is terminated and recorded with
// decision stopped, no further step is admitted, the server exits 143, and
// the run resumes, running the stopped step again.
func TestMCPSIGTERMStopsDriverGracefully(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	files := map[string]string{}
	for _, name := range []string{"slow/SKILL.md", "slow/run.yaml"} {
		raw, err := os.ReadFile(filepath.Join(repo, "kernel/mcp/testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(raw)
	}
	w := newWorkspace(t, files)
	c := w.cmd("", nil, "mcp", "./slow")
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	send := func(s string) {
		if _, err := stdin.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"serverInfo"`) {
		t.Fatalf("no initialize answer: %q", lines.Text())
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"dir":"` + w.dir + `"}}}`)
	count := filepath.Join(w.dir, "count")
	for i := 0; i < 800; i++ {
		// Step one has written its line, not only created the file.
		if raw, _ := os.ReadFile(count); string(raw) == "one\n" {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGTERM)
	err = c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 143 {
		t.Fatalf("want exit 143, got %v", err)
	}
	hist, _ := w.run("", nil, "history", "--json")
	open, _ := get(hist, "open").([]any)
	if len(open) != 1 {
		t.Fatalf("want the stopped run open, got %v", hist)
	}
	runID := str(open[0], "run_id")
	read, _ := w.run("", nil, "history", runID, "--json")
	stopped := false
	for _, ev := range get(read, "events", "steps").([]any) {
		stopped = stopped || str(ev, "type") == "step.stopped" && str(ev, "data", "decision") == "stopped"
	}
	if len(get(read, "steps").([]any)) != 0 || !stopped || get(read, "driven") != false {
		t.Fatalf("want step one stopped, unsettled, and the run free for its next driver, got %v", read)
	}
	// The stopped command may have acted: the next driver waits at its
	// retry, and runs it again on a person's yes.
	paused, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	if str(paused, "requests", "0", "address") != "one/retry" {
		t.Fatalf("want the stopped step waiting at its retry, got %v", paused)
	}
	yes := answerDoc("approvals", "one/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("resume: %d %v", code, done)
	}
	if got, _ := os.ReadFile(count); string(got) != "one\none\ntwo\n" {
		t.Fatalf("the stopped step runs again on a yes, then step two once; count file: %q", got)
	}
}

// runx mcp takes authority only from a saved preset, and needs something to
// serve.
func TestMCPUsage(t *testing.T) {
	w := newWorkspace(t, nil)
	for _, args := range [][]string{
		{"mcp"},
		{"mcp", "--run-authority", `{"effects":"allow"}`, "x"},
		{"mcp", "--run", "run_x", "./skill"},
	} {
		_, code := w.run("", nil, args...)
		if code != 2 {
			t.Errorf("runx %v exited %d, want 2 (usage)", args, code)
		}
	}
	// a preset the runx home does not hold refuses the start
	if _, code := w.run("", nil, "mcp", "--authority", "nosuch", filepath.Join("..", "..", "examples", "hello-world")); code != 1 {
		t.Errorf("an unknown preset exited %d, want 1", code)
	}
}
