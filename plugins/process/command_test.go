package process

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

func commandContext(root string) plugin.Context {
	return plugin.Context{
		RunID: "run-1", StepAddress: "build", CallID: "run-1#build@2", Attempt: 2,
		WorkspaceRoot: root, Reach: pathpolicy.ReachWorkspace,
	}
}

func withBinding(pc plugin.Context, b CommandBinding) plugin.Context {
	pc.Binding, _ = json.Marshal(b)
	return pc
}

func execute(t *testing.T, pc plugin.Context, req any) (*CommandResponse, *plugin.Result) {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	res := NewCommand().Invoke(context.Background(), &plugin.Call{Capability: CommandCapability, Context: pc, Input: in})
	if res.Status != plugin.StatusOK {
		return nil, res
	}
	var resp CommandResponse
	if err := json.Unmarshal(res.Output, &resp); err != nil {
		t.Fatal(err)
	}
	return &resp, res
}

func mustExecute(t *testing.T, pc plugin.Context, req any) *CommandResponse {
	t.Helper()
	resp, res := execute(t, pc, req)
	if resp == nil {
		t.Fatalf("want ok, got %s %s: %s", res.Status, res.Code, res.Message)
	}
	return resp
}

func TestCommandRunsExactArgvInTheWorkspace(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	resp := mustExecute(t, commandContext(root), CommandRequest{Argv: []string{"sh", "-c", `printf '%s|' "$0" "$1"; pwd; echo err >&2; exit 3`, "$(whoami)", "a b"}, Cwd: "sub/dir"})
	real, _ := filepath.EvalSymlinks(filepath.Join(root, "sub", "dir"))
	if resp.Stdout != "$(whoami)|a b|"+real+"\n" || resp.Stderr != "err\n" || resp.ExitCode != 3 {
		t.Fatalf("got %+v", resp)
	}
	if resp.Cwd != "sub/dir" || resp.Argv[0] != "sh" || resp.Process != (CommandProcess{Kind: "command", ID: "run-1#build@2"}) || resp.TimedOut || resp.Stopped {
		t.Fatalf("got %+v", resp)
	}
	// The workspace root is the default directory; a first attempt is @1.
	pc := commandContext(root)
	pc.Attempt = 0
	resp = mustExecute(t, pc, CommandRequest{Argv: []string{"pwd"}})
	rootReal, _ := filepath.EvalSymlinks(root)
	if resp.Stdout != rootReal+"\n" || resp.Cwd != "." || resp.Process.ID != "run-1#build@1" {
		t.Fatalf("got %+v", resp)
	}
}

func TestCommandEnvironmentIsOnlyWhatTheKernelGives(t *testing.T) {
	root := t.TempDir()
	t.Setenv("RUNX_HOST_SECRET", "leak")
	t.Setenv(LockTokenEnv, "the-plugin's-own")
	pc := withBinding(commandContext(root), CommandBinding{
		Environment: map[string]string{"GREETING": "hi", LockTokenEnv: "smuggled"},
		LockToken:   "tok-123",
	})
	pc.Credentials = map[string]string{"API_KEY": "sk-secret"}
	resp := mustExecute(t, pc, CommandRequest{Argv: []string{"env"}})
	got := strings.Split(strings.TrimSpace(resp.Stdout), "\n")
	want := map[string]bool{"PATH=" + os.Getenv("PATH"): true, "GREETING=hi": true, LockTokenEnv + "=tok-123": true}
	if len(got) != len(want) {
		t.Fatalf("environment %q", got)
	}
	for _, kv := range got {
		if !want[kv] {
			t.Fatalf("unexpected %q in %q", kv, got)
		}
	}
	// Without a lock token no token reaches the command at all.
	pc = withBinding(commandContext(root), CommandBinding{Environment: map[string]string{LockTokenEnv: "smuggled"}})
	if resp := mustExecute(t, pc, CommandRequest{Argv: []string{"env"}}); strings.Contains(resp.Stdout, LockTokenEnv) {
		t.Fatalf("environment %q", resp.Stdout)
	}
	// argv[0] is found on the PATH the command gets, not the plugin's.
	pc = withBinding(commandContext(root), CommandBinding{Environment: map[string]string{"PATH": t.TempDir()}})
	if _, res := execute(t, pc, CommandRequest{Argv: []string{"env"}}); res.Code != "process_command_not_found" {
		t.Fatalf("got %+v", res)
	}
}

func TestCommandRefusals(t *testing.T) {
	outside := t.TempDir()
	root := t.TempDir()
	for _, p := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "file.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	ok := []string{"true"}
	for name, tc := range map[string]struct {
		pc   plugin.Context
		req  any
		code errcode.Code
	}{
		"empty argv":         {commandContext(root), CommandRequest{Argv: []string{}}, errcode.CommandRequestInvalid},
		"empty command":      {commandContext(root), CommandRequest{Argv: []string{""}}, errcode.CommandRequestInvalid},
		"NUL in argv":        {commandContext(root), CommandRequest{Argv: []string{"echo", "a\x00b"}}, errcode.CommandRequestInvalid},
		"argument too long":  {commandContext(root), CommandRequest{Argv: []string{"echo", strings.Repeat("a", ArgvMaxArgBytes)}}, errcode.CommandArgvTooLarge},
		"argv over budget":   {commandContext(root), CommandRequest{Argv: append([]string{"echo"}, slices.Repeat([]string{strings.Repeat("a", 100<<10)}, 11)...)}, errcode.CommandArgvTooLarge},
		"a shell line":       {commandContext(root), map[string]any{"command": "ls -la"}, errcode.CommandRequestInvalid},
		"unknown field":      {commandContext(root), map[string]any{"argv": ok, "env": map[string]string{"A": "b"}}, errcode.CommandRequestInvalid},
		"negative timeout":   {commandContext(root), CommandRequest{Argv: ok, TimeoutSeconds: -1}, errcode.CommandRequestInvalid},
		"too long a timeout": {commandContext(root), CommandRequest{Argv: ok, TimeoutSeconds: CommandMaxTimeoutSeconds + 1}, errcode.CommandRequestInvalid},
		"cwd outside":        {commandContext(root), CommandRequest{Argv: ok, Cwd: "../"}, errcode.ReachOutsideWorkspace},
		"cwd absolute":       {commandContext(root), CommandRequest{Argv: ok, Cwd: outside}, errcode.ReachOutsideWorkspace},
		"cwd through a link": {commandContext(root), CommandRequest{Argv: ok, Cwd: "escape"}, errcode.ReachSymlinkEscape},
		"cwd in .git":        {commandContext(root), CommandRequest{Argv: ok, Cwd: ".git/hooks"}, errcode.ReachProtectedDir},
		"cwd a file":         {commandContext(root), CommandRequest{Argv: ok, Cwd: "file.txt"}, errcode.CommandCwdInvalid},
		"cwd missing":        {commandContext(root), CommandRequest{Argv: ok, Cwd: "nope"}, errcode.CommandCwdInvalid},
		"no workspace":       {plugin.Context{Reach: pathpolicy.ReachWorkspace}, CommandRequest{Argv: ok}, errcode.ReachWorkspaceMissing},
		"bad variable name":  {withBinding(commandContext(root), CommandBinding{Environment: map[string]string{"A=B": "c"}}), CommandRequest{Argv: ok}, errcode.CommandEnvironmentInvalid},
		"binding not object": {func() plugin.Context { pc := commandContext(root); pc.Binding = []byte(`[1]`); return pc }(), CommandRequest{Argv: ok}, errcode.CommandEnvironmentInvalid},
		"missing binary":     {commandContext(root), CommandRequest{Argv: []string{"runx-no-such-command"}}, "process_command_not_found"},
		"unknown capability": {commandContext(root), CommandRequest{Argv: ok}, "capability_not_found"},
	} {
		t.Run(name, func(t *testing.T) {
			capability := CommandCapability
			if name == "unknown capability" {
				capability = "command.shell"
			}
			in, _ := json.Marshal(tc.req)
			res := NewCommand().Invoke(context.Background(), &plugin.Call{Capability: capability, Context: tc.pc, Input: in})
			if res.Code != tc.code {
				t.Fatalf("want %s, got %s %s: %s", tc.code, res.Status, res.Code, res.Message)
			}
		})
	}
	// Under reach inputs a command may start in an input root.
	pc := commandContext(root)
	pc.Reach, pc.ReachRoots = pathpolicy.ReachInputs, []string{outside}
	if resp := mustExecute(t, pc, CommandRequest{Argv: ok, Cwd: outside}); resp.Cwd != outside {
		t.Fatalf("got %+v", resp)
	}
}

func TestCommandOutputKeepsItsEnd(t *testing.T) {
	resp := mustExecute(t, commandContext(t.TempDir()), CommandRequest{Argv: []string{"sh", "-c",
		"head -c 5000000 /dev/zero | tr '\\0' x; echo; echo the-end"}})
	if !resp.StdoutTruncated || len(resp.Stdout) != CommandMaxStdoutBytes || !strings.HasSuffix(resp.Stdout, "x\nthe-end\n") || resp.ExitCode != 0 {
		t.Fatalf("truncated %v, %d bytes, exit %d, ends %q", resp.StdoutTruncated, len(resp.Stdout), resp.ExitCode, resp.Stdout[max(0, len(resp.Stdout)-20):])
	}
}

func TestCommandTimeoutAndCancel(t *testing.T) {
	start := time.Now()
	resp := mustExecute(t, commandContext(t.TempDir()), CommandRequest{Argv: []string{"sleep", "30"}, TimeoutSeconds: 1})
	if !resp.TimedOut || resp.Signal == "" || time.Since(start) > 5*time.Second {
		t.Fatalf("got %+v after %v", resp, time.Since(start))
	}

	c := NewCommand()
	in, _ := json.Marshal(CommandRequest{Argv: []string{"sleep", "30"}})
	done := make(chan *plugin.Result, 1)
	go func() {
		done <- c.Invoke(context.Background(), &plugin.Call{Capability: CommandCapability, Context: commandContext(t.TempDir()), Input: in})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for c.Cancel("run-1#build@2") != plugin.CancelRunsToEnd {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case res := <-done:
		var resp CommandResponse
		if err := json.Unmarshal(res.Output, &resp); err != nil || !resp.Stopped || resp.Signal == "" {
			t.Fatalf("want a stopped command, got %+v (%v)", resp, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled command kept running")
	}
}

func TestCommandDescribesItself(t *testing.T) {
	info := NewCommand().Info()
	if info.Name != CommandName || len(info.Capabilities) != 1 {
		t.Fatalf("info %+v", info)
	}
	d := info.Capabilities[0]
	if d.ID != CommandCapability || d.Effect != plugin.EffectProcess || !json.Valid(d.InputSchema) || !json.Valid(d.OutputSchema) {
		t.Fatalf("definition %+v", d)
	}
}
