package process

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// TestMain lets this test binary be the supervisor process.start spawns,
// as the runx binary is in production.
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "process" && os.Args[2] == "supervise" {
		os.Exit(Supervise(os.Args[3:]))
	}
	os.Exit(m.Run())
}

type procEnv struct {
	t       testing.TB
	root    string
	project string
	actor   string
	calls   int
}

func newProcEnv(t testing.TB) *procEnv {
	root := t.TempDir()
	e := &procEnv{t: t, root: root, project: filepath.Join(root, ".runx"), actor: "local"}
	t.Cleanup(e.stopAll)
	return e
}

// stopAll stops whatever a test left running, so no supervisor outlives it.
func (e *procEnv) stopAll() {
	views, _ := listViews(e.project, now)
	for _, v := range views {
		if v.running() {
			_ = stopRunning(v)
		}
	}
}

func (e *procEnv) context(callID string) plugin.Context {
	b, _ := json.Marshal(Binding{ProjectDir: e.project, Actor: e.actor})
	return plugin.Context{RunID: "run-1", StepAddress: "s", CallID: callID, Attempt: 1, WorkspaceRoot: e.root, Reach: pathpolicy.ReachWorkspace, Binding: b}
}

func (e *procEnv) invokeAs(callID, capability string, in any) *plugin.Result {
	raw, err := json.Marshal(in)
	if err != nil {
		e.t.Fatal(err)
	}
	return New().Invoke(context.Background(), &plugin.Call{Capability: capability, Context: e.context(callID), Input: raw})
}

func (e *procEnv) invoke(capability string, in any) *plugin.Result {
	e.calls++
	return e.invokeAs(fmt.Sprintf("run-1#s@%d", e.calls), capability, in)
}

func ok[T any](t testing.TB, res *plugin.Result) *T {
	t.Helper()
	if res.Status != plugin.StatusOK {
		t.Fatalf("want ok, got %s %s: %s", res.Status, res.Code, res.Message)
	}
	var v T
	if err := json.Unmarshal(res.Output, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

func wantCode(t *testing.T, res *plugin.Result, code errcode.Code) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("want %s, got %s %s: %s", code, res.Status, res.Code, res.Message)
	}
}

func (e *procEnv) start(req StartRequest) *Process {
	e.t.Helper()
	return ok[Process](e.t, e.invoke(StartCapability, req))
}

// readUntil follows a process's log by cursor until its text holds want,
// returning all it read and the last page.
func (e *procEnv) readUntil(id, cursor, want string) (string, *Output) {
	e.t.Helper()
	var text strings.Builder
	deadline := time.Now().Add(15 * time.Second)
	for {
		out := ok[Output](e.t, e.invoke(ReadCapability, ReadRequest{ProcessID: id, After: cursor}))
		for _, c := range out.Chunks {
			text.WriteString(c.Data)
			if c.DataBase64 != "" {
				b, _ := base64.StdEncoding.DecodeString(c.DataBase64)
				text.Write(b)
			}
		}
		cursor = out.Cursor
		if strings.Contains(text.String(), want) {
			return text.String(), out
		}
		if !out.Running && out.Bytes == 0 {
			e.t.Fatalf("process %s ended (%s) without printing %q; printed %q", id, out.State, want, text.String())
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("process %s never printed %q; printed %q", id, want, text.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const echoLoop = `echo ready; echo warn >&2; while read l; do echo "got:$l"; done`

func TestProcessStartReadWriteStopList(t *testing.T) {
	e := newProcEnv(t)
	p := e.start(StartRequest{Command: "sh", Args: []string{"-c", echoLoop}, Env: map[string]string{"GREETING": "hi"}})
	if p.Schema != ProcessSchema || !strings.HasPrefix(p.ProcessID, "proc_") || p.State != StateRunning || !p.Running ||
		p.Kind != KindProcess || p.Actor != "local" || p.MaxSeconds != StartDefaultMaxSeconds || p.PID == 0 || p.Cwd != "." {
		t.Fatalf("started %+v", p)
	}
	if strings.Join(p.EnvNames, ",") != "GREETING,PATH" {
		t.Fatalf("env names %q", p.EnvNames)
	}
	_, page := e.readUntil(p.ProcessID, "", "ready")
	// stdout and stderr arrive tagged.
	text, _ := e.readUntil(p.ProcessID, "", "warn")
	if !strings.Contains(text, "ready\n") {
		t.Fatalf("log %q", text)
	}
	w := ok[WriteResponse](t, e.invokeAs("run-1#w@1", WriteCapability, WriteRequest{ProcessID: p.ProcessID, Input: "one\n"}))
	if w.Bytes != 4 || w.AlreadyApplied {
		t.Fatalf("write %+v", w)
	}
	// The same call sent again is applied once.
	w = ok[WriteResponse](t, e.invokeAs("run-1#w@1", WriteCapability, WriteRequest{ProcessID: p.ProcessID, Input: "one\n"}))
	if !w.AlreadyApplied {
		t.Fatalf("resent write %+v", w)
	}
	ok[WriteResponse](t, e.invoke(WriteCapability, WriteRequest{ProcessID: p.ProcessID, Input: "two\n"}))
	text, _ = e.readUntil(p.ProcessID, page.Cursor, "got:two")
	if strings.Count(text, "got:one") != 1 {
		t.Fatalf("the resent write was applied twice: %q", text)
	}
	stopped := ok[Process](t, e.invoke(StopCapability, IDRequest{ProcessID: p.ProcessID}))
	if stopped.State != StateStopped || stopped.Running || stopped.EndedAt.IsZero() {
		t.Fatalf("stopped %+v", stopped)
	}
	if syscall.Kill(p.PID, 0) == nil {
		t.Fatalf("pid %d outlived its stop", p.PID)
	}
	list := ok[List](t, e.invoke(ListCapability, ListRequest{}))
	if len(list.Processes) != 1 || list.Processes[0].ProcessID != p.ProcessID || list.Processes[0].State != StateStopped {
		t.Fatalf("list %+v", list)
	}
	// A stopped process takes no input; stopping it again says how it ended.
	wantCode(t, e.invoke(WriteCapability, WriteRequest{ProcessID: p.ProcessID, Input: "x"}), errcode.ProcessNotRunning)
	if again := ok[Process](t, e.invoke(StopCapability, IDRequest{ProcessID: p.ProcessID})); again.State != StateStopped {
		t.Fatalf("stop again %+v", again)
	}
}

func TestProcessExitIsRecordedAndOutputKept(t *testing.T) {
	e := newProcEnv(t)
	p := e.start(StartRequest{Command: "sh", Args: []string{"-c", "echo bye; exit 3"}})
	text, out := e.readUntil(p.ProcessID, "", "bye")
	for out.Running {
		out = ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID, After: out.Cursor}))
	}
	if text != "bye\n" || out.State != StateExited || out.ExitCode == nil || *out.ExitCode != 3 {
		t.Fatalf("read %q then %+v", text, out)
	}
	// Read again from the start once it ended: all of it, and not running.
	all := ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID}))
	if all.Running || len(all.Chunks) != 1 || all.Chunks[0].Data != "bye\n" || all.Chunks[0].Stream != "stdout" {
		t.Fatalf("read %+v", all)
	}
}

func TestProcessStartSentAgainReturnsTheSameProcess(t *testing.T) {
	e := newProcEnv(t)
	req := StartRequest{Command: "sleep", Args: []string{"30"}}
	first := ok[Process](t, e.invokeAs("run-1#s@1", StartCapability, req))
	again := ok[Process](t, e.invokeAs("run-1#s@1", StartCapability, req))
	if again.ProcessID != first.ProcessID || again.PID != first.PID {
		t.Fatalf("first %+v, again %+v", first, again)
	}
	views, _ := listViews(e.project, now)
	if len(views) != 1 {
		t.Fatalf("%d processes", len(views))
	}
	// The same call with another request is refused, naming the process.
	wantCode(t, e.invokeAs("run-1#s@1", StartCapability, StartRequest{Command: "sleep", Args: []string{"31"}}), errcode.ProcessCallConflict)
}

func TestUnconfirmedStartSettlesFailed(t *testing.T) {
	e := newProcEnv(t)
	req := StartRequest{Command: "sleep", Args: []string{"30"}}
	raw, _ := json.Marshal(req)
	id := startID("run-1#s@9")
	dir := processDir(e.project, id)
	// A starter that recorded the start and died before any supervisor ran.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(raw)
	sum := "sha256:" + hex.EncodeToString(h[:])
	rec := &record{ProcessID: id, Kind: KindProcess, CallID: "run-1#s@9", Actor: "local", Argv: []string{"sleep", "30"}, RequestHash: sum, CreatedAt: now()}
	if err := writeJSONAtomic(filepath.Join(dir, recordFile), rec, true); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.invokeAs("run-1#s@9", StartCapability, req), errcode.EffectUnconfirmed)
	list := ok[List](t, e.invoke(ListCapability, ListRequest{}))
	if len(list.Processes) != 1 || list.Processes[0].State != StateFailed || list.Processes[0].Running {
		t.Fatalf("list %+v", list.Processes[0])
	}
	// While a starter holds the lock the start is not settled.
	dir2 := processDir(e.project, startID("held"))
	os.MkdirAll(dir2, 0o700)
	rec.ProcessID, rec.CallID = startID("held"), "held"
	writeJSONAtomic(filepath.Join(dir2, recordFile), rec, true)
	lock, _ := openLock(dir2)
	defer lock.Close()
	syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
	if v, err := loadView(dir2, now); err != nil || v.state() != StateStarting {
		t.Fatalf("held start %v %v", v, err)
	}
}

func TestSupervisorKilledIsRecordedLost(t *testing.T) {
	e := newProcEnv(t)
	p := e.start(StartRequest{Command: "sh", Args: []string{"-c", "echo up; exec sleep 60"}})
	e.readUntil(p.ProcessID, "", "up")
	v, err := loadView(processDir(e.project, p.ProcessID), now)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(v.confirmed.SupervisorPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := ok[List](t, e.invoke(ListCapability, ListRequest{}))
		if list.Processes[0].State == StateLost {
			if list.Processes[0].Running || !strings.Contains(list.Processes[0].Message, "supervisor") {
				t.Fatalf("lost %+v", list.Processes[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never settled: %+v", list.Processes[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	deadline = time.Now().Add(5 * time.Second)
	for syscall.Kill(p.PID, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("child %d outlived its killed supervisor", p.PID)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessStopsAtMaxSeconds(t *testing.T) {
	e := newProcEnv(t)
	p := e.start(StartRequest{Command: "sleep", Args: []string{"60"}, MaxSeconds: 1})
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID}))
		if !out.Running {
			if out.State != StateTimedOut || out.Signal == "" {
				t.Fatalf("ended %+v", out)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("max_seconds did not stop the process")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestProcessInATerminal(t *testing.T) {
	e := newProcEnv(t)
	p := e.start(StartRequest{Command: "sh", Args: []string{"-c", `stty size; [ -t 0 ] && echo is-a-tty; read l; stty size; echo "typed:$l"; exec awk 'BEGIN { print "awk-reads"; fflush(); while ((getline l) > 0) {} }'`}, TTY: &TTY{Rows: 24, Cols: 80}})
	if p.TTY == nil || p.TTY.Rows != 24 {
		t.Fatalf("started %+v", p)
	}
	text, page := e.readUntil(p.ProcessID, "", "is-a-tty")
	if !strings.Contains(text, "24 80") {
		t.Fatalf("terminal said %q", text)
	}
	if out := ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID})); out.Chunks[0].Stream != "terminal" {
		t.Fatalf("chunks %+v", out.Chunks)
	}
	ok[Process](t, e.invoke(ResizeCapability, ResizeRequest{ProcessID: p.ProcessID, Rows: 40, Cols: 120}))
	ok[WriteResponse](t, e.invoke(WriteCapability, WriteRequest{ProcessID: p.ProcessID, Input: "hello\r"}))
	text, page = e.readUntil(p.ProcessID, page.Cursor, "awk-reads")
	if !strings.Contains(text, "40 120") || !strings.Contains(text, "typed:hello") {
		t.Fatalf("after resize the terminal said %q", text)
	}
	// Ctrl-C through the terminal interrupts the foreground program. The
	// program is one that says it is reading: a shell running `sleep`
	// catches SIGINT between its fork and the exec, and a Ctrl-C there
	// would be lost to the shell's race, not to runx.
	ok[WriteResponse](t, e.invoke(WriteCapability, WriteRequest{ProcessID: p.ProcessID, Input: "\x03"}))
	deadline := time.Now().Add(10 * time.Second)
	for out := page; out.Running; {
		if time.Now().After(deadline) {
			t.Fatal("Ctrl-C did not end the program")
		}
		out = ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID, After: out.Cursor}))
		if !out.Running && (out.State != StateExited || out.Signal != syscall.SIGINT.String()) {
			t.Fatalf("ended %+v", out)
		}
	}
}

// A supervisor started with SIGINT and SIGHUP ignored (a shell's
// background job, nohup) must not hand the ignoring on: the child starts
// with every signal's default action, so Ctrl-C in its terminal works.
func TestChildStartsWithDefaultSignals(t *testing.T) {
	orig := supervisorCommand
	t.Cleanup(func() { supervisorCommand = orig })
	supervisorCommand = func(dir string) (*exec.Cmd, error) {
		cmd, err := orig(dir)
		if err != nil {
			return nil, err
		}
		shell := append([]string{"-c", `trap '' INT HUP QUIT; exec "$@"`, "sh"}, cmd.Args...)
		cmd.Args = append([]string{"sh"}, shell...)
		cmd.Path, err = exec.LookPath("sh")
		return cmd, err
	}
	e := newProcEnv(t)
	for _, tty := range []*TTY{nil, {Rows: 24, Cols: 80}} {
		p := e.start(StartRequest{Command: "sh", Args: []string{"-c", `echo "ignored $(grep '^SigIgn' /proc/$$/status) ."`}, TTY: tty})
		text, _ := e.readUntil(p.ProcessID, "", " .")
		fields := strings.Fields(text[strings.Index(text, "ignored"):])
		if len(fields) != 4 || fields[1] != "SigIgn:" {
			t.Fatalf("the child said %q", text)
		}
		mask, err := strconv.ParseUint(fields[2], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE} {
			if mask&(1<<(uint(sig)-1)) != 0 {
				t.Errorf("tty=%v: the child ignores %v (SigIgn %s)", tty != nil, sig, fields[2])
			}
		}
	}
}

func TestProcessesBelongToTheirActor(t *testing.T) {
	e := newProcEnv(t)
	p := e.start(StartRequest{Command: "sleep", Args: []string{"30"}})
	other := *e
	other.actor = "someone-else"
	wantCode(t, other.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID}), errcode.ProcessNotFound)
	wantCode(t, other.invoke(StopCapability, IDRequest{ProcessID: p.ProcessID}), errcode.ProcessNotFound)
	if list := ok[List](t, other.invoke(ListCapability, ListRequest{})); len(list.Processes) != 0 {
		t.Fatalf("another actor lists %+v", list.Processes)
	}
	wantCode(t, other.invoke(ListCapability, ListRequest{Actor: "local"}), errcode.ProcessActorForbidden)
	// The person's own view reaches every actor's, and filters by actor.
	b, _ := json.Marshal(Binding{ProjectDir: e.project, AllActors: true})
	pc := e.context("cli")
	pc.Binding = b
	in, _ := json.Marshal(ListRequest{Actor: "local"})
	res := New().Invoke(context.Background(), &plugin.Call{Capability: ListCapability, Context: pc, Input: in})
	if list := ok[List](t, res); len(list.Processes) != 1 {
		t.Fatalf("person lists %+v", list.Processes)
	}
}

func TestProcessLogIsBounded(t *testing.T) {
	saved := LogMaxBytes
	LogMaxBytes = 64 << 10
	t.Cleanup(func() { LogMaxBytes = saved })
	e := newProcEnv(t)
	p := e.start(StartRequest{Command: "sh", Args: []string{"-c", "head -c 400000 /dev/zero | tr '\\0' x; echo; echo the-end"}})
	var out *Output
	for out = ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID})); out.Running; {
		out = ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID}))
	}
	var kept strings.Builder
	cursor := ""
	var dropped int64
	for {
		page := ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID, After: cursor, MaxBytes: 8192}))
		dropped += page.DroppedBytes
		for _, c := range page.Chunks {
			kept.WriteString(c.Data)
		}
		if page.Bytes == 0 {
			break
		}
		if page.Bytes > 8192+frameMaxData {
			t.Fatalf("page of %d bytes", page.Bytes)
		}
		cursor = page.Cursor
	}
	if dropped == 0 || int64(kept.Len()) > LogMaxBytes+frameMaxData || !strings.HasSuffix(kept.String(), "x\nthe-end\n") {
		t.Fatalf("dropped %d, kept %d bytes ending %q", dropped, kept.Len(), kept.String()[max(0, kept.Len()-20):])
	}
}

func TestProcessToolRefusals(t *testing.T) {
	e := newProcEnv(t)
	os.WriteFile(filepath.Join(e.root, "file.txt"), []byte("x"), 0o644)
	plain := e.start(StartRequest{Command: "sleep", Args: []string{"30"}})
	for name, tc := range map[string]struct {
		capability string
		in         any
		code       errcode.Code
	}{
		"no command":          {StartCapability, map[string]any{"args": []string{"x"}}, errcode.ProcessRequestInvalid},
		"unknown field":       {StartCapability, map[string]any{"command": "true", "shell": true}, errcode.ProcessRequestInvalid},
		"NUL in args":         {StartCapability, StartRequest{Command: "echo", Args: []string{"a\x00"}}, errcode.ProcessRequestInvalid},
		"max_seconds too big": {StartCapability, StartRequest{Command: "true", MaxSeconds: StartMaxSeconds + 1}, errcode.ProcessRequestInvalid},
		"tty of no size":      {StartCapability, StartRequest{Command: "true", TTY: &TTY{}}, errcode.ProcessRequestInvalid},
		"cwd outside":         {StartCapability, StartRequest{Command: "true", Cwd: "../"}, errcode.ReachOutsideWorkspace},
		"cwd a file":          {StartCapability, StartRequest{Command: "true", Cwd: "file.txt"}, errcode.CommandCwdInvalid},
		"bad env name":        {StartCapability, StartRequest{Command: "true", Env: map[string]string{"A=B": "c"}}, errcode.CommandEnvironmentInvalid},
		"missing binary":      {StartCapability, StartRequest{Command: "runx-no-such-command"}, "process_command_not_found"},
		"unknown process":     {ReadCapability, ReadRequest{ProcessID: "proc_00000000000000000000000000"}, errcode.ProcessNotFound},
		"no process id":       {ReadCapability, map[string]any{}, errcode.ProcessRequestInvalid},
		"bad cursor":          {ReadCapability, ReadRequest{ProcessID: plain.ProcessID, After: "x1"}, errcode.ProcessCursorInvalid},
		"cursor past the end": {ReadCapability, ReadRequest{ProcessID: plain.ProcessID, After: "99999"}, errcode.ProcessCursorInvalid},
		"max_bytes too big":   {ReadCapability, ReadRequest{ProcessID: plain.ProcessID, MaxBytes: ReadMaxBytes + 1}, errcode.ProcessRequestInvalid},
		"resize no terminal":  {ResizeCapability, ResizeRequest{ProcessID: plain.ProcessID, Rows: 1, Cols: 1}, errcode.ProcessNotATerminal},
		"resize to nothing":   {ResizeCapability, ResizeRequest{ProcessID: plain.ProcessID}, errcode.ProcessRequestInvalid},
		"write too much":      {WriteCapability, WriteRequest{ProcessID: plain.ProcessID, Input: strings.Repeat("x", WriteMaxBytes+1)}, errcode.ProcessRequestInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, e.invoke(tc.capability, tc.in), tc.code)
		})
	}
	// Without the project's state nothing can be kept.
	pc := e.context("c")
	pc.Binding = nil
	in, _ := json.Marshal(StartRequest{Command: "true"})
	wantCode(t, New().Invoke(context.Background(), &plugin.Call{Capability: StartCapability, Context: pc, Input: in}), errcode.ProcessStateUnavailable)
}

func TestProcessToolsDescribeThemselves(t *testing.T) {
	info := New().Info()
	byID := map[string]plugin.Definition{}
	for _, d := range info.Capabilities {
		if !json.Valid(d.InputSchema) || !json.Valid(d.OutputSchema) || len(d.Scopes) == 0 && d.ID != Capability {
			t.Fatalf("definition %+v", d)
		}
		byID[d.ID] = d
	}
	start := byID[StartCapability]
	if start.Effect != plugin.EffectProcess || !start.Idempotent || len(start.PathInputs) != 1 {
		t.Fatalf("start %+v", start)
	}
	argv, err := start.Argv([]byte(`{"command":"npm","args":["run","dev"]}`))
	if err != nil || strings.Join(argv, " ") != "npm run dev" {
		t.Fatalf("argv %q %v", argv, err)
	}
	for _, id := range []string{ReadCapability, ListCapability} {
		if byID[id].Effect != plugin.EffectRead {
			t.Fatalf("%s %+v", id, byID[id])
		}
	}
	for _, id := range []string{WriteCapability, ResizeCapability, StopCapability} {
		if byID[id].Effect != plugin.EffectWrite {
			t.Fatalf("%s %+v", id, byID[id])
		}
	}
}
