package process

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

func run(t *testing.T, req Request) (*Response, *plugin.Result) {
	t.Helper()
	if req.Cwd == "" {
		req.Cwd = t.TempDir()
	}
	in, _ := json.Marshal(req)
	res := New().Invoke(context.Background(), &plugin.Call{Capability: Capability, Input: in})
	if res.Status != plugin.StatusOK {
		return nil, res
	}
	var resp Response
	if err := json.Unmarshal(res.Output, &resp); err != nil {
		t.Fatal(err)
	}
	return &resp, res
}

func TestExactArgvNoShell(t *testing.T) {
	resp, res := run(t, Request{Argv: []string{"printf", "%s|%s", "$(whoami)", "a b"}})
	if resp == nil {
		t.Fatalf("%+v", res)
	}
	if resp.Stdout != "$(whoami)|a b" || resp.ExitCode != 0 {
		t.Fatalf("argv was not passed exactly: %+v", resp)
	}
}

func TestOnlyDeliveredEnvironment(t *testing.T) {
	t.Setenv("RUNX_HOST_ONLY", "leak")
	resp, _ := run(t, Request{Argv: []string{"/usr/bin/env"}, Env: map[string]string{"GREETING": "hi"}})
	if resp == nil || strings.TrimSpace(resp.Stdout) != "GREETING=hi" {
		t.Fatalf("environment not exact: %+v", resp)
	}
}

func TestStdinAndCwd(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "marker"), []byte("x"), 0o644)
	in := `{"a":1}`
	resp, _ := run(t, Request{Argv: []string{"sh", "-c", "cat; ls"}, Cwd: dir, Stdin: &in})
	if resp == nil || resp.Stdout != `{"a":1}marker`+"\n" {
		t.Fatalf("got %+v", resp)
	}
}

func TestNonZeroExitIsReported(t *testing.T) {
	resp, _ := run(t, Request{Argv: []string{"sh", "-c", "echo oops >&2; exit 7"}})
	if resp == nil || resp.ExitCode != 7 || resp.Stderr != "oops\n" {
		t.Fatalf("got %+v", resp)
	}
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	start := time.Now()
	resp, res := run(t, Request{Argv: []string{"sh", "-c", "sleep 30 & echo $! > " + pidFile + "; wait"}, Cwd: dir, TimeoutMS: 300})
	if resp == nil {
		t.Fatalf("%+v", res)
	}
	if !resp.TimedOut || resp.Signal == "" {
		t.Fatalf("want a timed-out, signalled process: %+v", resp)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("timeout did not stop the process promptly")
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d outlived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBoundedOutput(t *testing.T) {
	_, res := run(t, Request{Argv: []string{"sh", "-c", "head -c 5000 /dev/zero"}, MaxStdoutBytes: 1000})
	if res.Status != plugin.StatusFailed || res.Code != "process_output_too_large" {
		t.Fatalf("got %+v", res)
	}
}

func TestRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		req  Request
		code errcode.Code
	}{
		"empty argv":     {Request{Argv: []string{}, Cwd: "/"}, "process_argv_empty"},
		"no cwd":         {Request{Argv: []string{"true"}}, "process_cwd_missing"},
		"bad cwd":        {Request{Argv: []string{"true"}, Cwd: "/no/such/dir"}, "process_cwd_invalid"},
		"bad timeout":    {Request{Argv: []string{"true"}, Cwd: "/", TimeoutMS: -1}, "process_timeout_invalid"},
		"missing binary": {Request{Argv: []string{"runx-no-such-command"}, Cwd: "/"}, "process_command_not_found"},
	} {
		t.Run(name, func(t *testing.T) {
			in, _ := json.Marshal(tc.req)
			res := New().Invoke(context.Background(), &plugin.Call{Capability: Capability, Input: in})
			if res.Code != tc.code {
				t.Fatalf("want %s, got %+v", tc.code, res)
			}
		})
	}
}

func TestCancelStopsTheProcess(t *testing.T) {
	p := New()
	in, _ := json.Marshal(Request{Argv: []string{"sleep", "30"}, Cwd: t.TempDir()})
	done := make(chan *plugin.Result, 1)
	go func() {
		done <- p.Invoke(context.Background(), &plugin.Call{Capability: Capability, Context: plugin.Context{CallID: "c1"}, Input: in})
	}()
	time.Sleep(200 * time.Millisecond)
	if state := p.Cancel("c1"); state != plugin.CancelRunsToEnd {
		t.Fatalf("cancel state %q", state)
	}
	select {
	case res := <-done:
		var resp Response
		json.Unmarshal(res.Output, &resp)
		if !resp.Stopped || resp.Signal == "" {
			t.Fatalf("want a stopped process, got %+v", resp)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled process kept running")
	}
}
