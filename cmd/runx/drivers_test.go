package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/internal/testenv"
)

// workspace is a scratch project with its own runx home, driven through the
// built binary.
type workspace struct {
	t   *testing.T
	dir string
	env []string
}

func newWorkspace(t *testing.T, files map[string]string) *workspace {
	t.Helper()
	dir := testenv.Dir(t)
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &workspace{t: t, dir: dir, env: testenv.Env(dir)}
}

func (w *workspace) cmd(stdin string, extraEnv []string, args ...string) *exec.Cmd {
	c := exec.Command(filepath.Join(binDir, "runx"), args...)
	c.Dir, c.Env = w.dir, append(append([]string{}, w.env...), extraEnv...)
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	return c
}

// run runs runx and decodes its one JSON document.
func (w *workspace) run(stdin string, extraEnv []string, args ...string) (map[string]any, int) {
	w.t.Helper()
	var out bytes.Buffer
	c := w.cmd(stdin, extraEnv, args...)
	c.Stdout = &out
	err := c.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	var doc map[string]any
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			w.t.Fatalf("runx %v printed no single JSON document: %v\n%s", args, err, out.String())
		}
	}
	return doc, code
}

func get(doc any, path ...string) any {
	for _, p := range path {
		switch c := doc.(type) {
		case map[string]any:
			doc = c[p]
		case []any:
			i, _ := strconv.Atoi(p)
			if i >= len(c) {
				return nil
			}
			doc = c[i]
		default:
			return nil
		}
	}
	return doc
}

func str(doc any, path ...string) string { s, _ := get(doc, path...).(string); return s }

const slowSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: one
        tool: { command: sh, args: ["-c", "if [ -e ../go ]; then echo one >> ../count; else mkfifo ../gate; echo one >> ../count; cat ../gate; fi; printf '{\"one\":true}'"] }
      - id: two
        tool: { command: sh, args: ["-c", "echo two >> ../count; printf '{\"two\":true}'"] }
`

const manual = "---\nname: %s\ndescription: A test skill.\n---\nManual.\n"

func skillFiles(name, runYAML string) map[string]string {
	return map[string]string{
		name + "/SKILL.md": strings.Replace(manual, "%s", name, 1),
		name + "/run.yaml": runYAML,
	}
}

// SIGTERM terminates the command a run has in flight (its process group,
// after a short grace), records it with decision stopped and admits no
// further step; the envelope says stopped and runx exits 143. The stopped
// command may have acted, so a resume waits at its retry, and a person's
// {"retry": true} runs it again.
func TestSIGTERMStopsACommandInFlightAndResumes(t *testing.T) {
	w := newWorkspace(t, skillFiles("slow", slowSkill))
	var out bytes.Buffer
	c := w.cmd("", nil, "skill", "./slow", "--json")
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Step one writes its mark, then waits on a fifo nobody writes: it is in
	// flight for as long as the test needs, with no timing involved.
	waitForLine(t, filepath.Join(w.dir, "count"))
	c.Process.Signal(syscall.SIGTERM)
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 143 {
		t.Fatalf("want exit 143, got %v\n%s", err, out.String())
	}
	var env map[string]any
	json.Unmarshal(out.Bytes(), &env)
	runID := str(env, "run_id")
	if str(env, "status") != "stopped" || runID == "" {
		t.Fatalf("want a stopped envelope, got %s", out.String())
	}
	if str(env, "trace", "status") != "stopped" {
		t.Fatalf("a stopped run's trace is stopped, not failed: %s", out.String())
	}
	// The step in flight was stopped, not settled; no further step was admitted.
	read, _ := w.run("", nil, "history", runID, "--json")
	if str(read, "state") != "stopped" || len(get(read, "steps").([]any)) != 0 {
		t.Fatalf("want no step settled and the run stopped, got %v", read)
	}
	stopped := false
	for _, ev := range get(read, "events", "steps").([]any) {
		if str(ev, "type") == "step.stopped" && str(ev, "data", "address") == "one" && str(ev, "data", "decision") == "stopped" {
			stopped = true
		}
	}
	if !stopped {
		t.Fatalf("the interrupted step must be recorded with decision stopped: %v", get(read, "events"))
	}
	// Nothing of the stopped step's process group is left: the fifo has no
	// reader any more, so opening it for writing without blocking fails.
	if f, err := os.OpenFile(filepath.Join(w.dir, "gate"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
		t.Fatal("the stopped step's process still holds its fifo open")
	}
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paused, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	if str(paused, "requests", "0", "address") != "one/retry" {
		t.Fatalf("the stopped command may have acted: a resume waits at its retry, got %v", paused)
	}
	yes := answerDoc("approvals", "one/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("resume: %d %v", code, done)
	}
	count, _ := os.ReadFile(filepath.Join(w.dir, "count"))
	if string(count) != "one\none\ntwo\n" {
		t.Fatalf("the stopped step runs again on a person's yes, then step two once; count file: %q", count)
	}
}

// waitForFile polls for a file a child process creates as its readiness
// signal.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	waitForContent(t, path, func([]byte) bool { return true })
}

// waitForLine waits until path holds at least one whole line: a shell's
// `echo one >> count` creates the file a moment before it writes, and a
// signal in between would catch the step starting, not in flight.
func waitForLine(t *testing.T, path string) {
	t.Helper()
	waitForContent(t, path, func(raw []byte) bool { return bytes.HasSuffix(raw, []byte("\n")) })
}

func waitForContent(t *testing.T, path string, ready func([]byte) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if raw, err := os.ReadFile(path); err == nil && ready(raw) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared as expected", path)
}

const gatedSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: draft
        agent: { task: Draft it. }
        outputs: { text: { type: string } }
      - id: approve
        ask: { reason: Ship it? }
      - id: ship
        tool: { command: sh, args: ["-c", "sleep 1; printf '{\"shipped\":true}'"] }
`

func answerDoc(lane, addr, digest, entry string) string {
	return `{"` + lane + `":{"` + addr + `":{"request_digest":"` + digest + `",` + entry + `}}}`
}

// A run paused at an agent turn, its driver killed between admitting the
// answer and using it, is resumed from another process with no entries,
// pauses at the approval, is approved (the driver killed again right after
// admitting the approval), resumed again, sealed, and its tree verifies.
func TestKillBetweenAdmissionAndUseLosesNothing(t *testing.T) {
	w := newWorkspace(t, skillFiles("gated", gatedSkill))
	paused, _ := w.run("", nil, "skill", "./gated", "--json")
	runID, digest := str(paused, "run_id"), str(paused, "requests", "0", "request_digest")
	if str(paused, "status") != "needs_agent" {
		t.Fatalf("got %v", paused)
	}
	answer := answerDoc("answers", "draft", digest, `"value":{"text":"v1"}`)
	if _, code := w.run(answer, []string{"RUNX_TEST_CRASH_AT=before_decision_used"}, "resume", runID, "-", "--json"); code != 137 {
		t.Fatalf("the crash hook did not stop the driver (exit %d)", code)
	}
	read, _ := w.run("", nil, "history", runID, "--json")
	if str(read, "answered", "0", "address") != "draft" || get(read, "answered", "0", "used") != false {
		t.Fatalf("the admitted answer must be recorded, unused: %v", get(read, "answered"))
	}
	gate, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	if str(gate, "status") != "needs_approval" {
		t.Fatalf("a resume with no entries must use the admitted answer: %v", gate)
	}
	approve := answerDoc("approvals", "approve", str(gate, "requests", "0", "request_digest"), `"approved":true,"reason":"yes"`)
	if _, code := w.run(approve, []string{"RUNX_TEST_CRASH_AT=after_decisions_admitted"}, "resume", runID, "-", "--json"); code != 137 {
		t.Fatalf("the crash hook did not stop the driver (exit %d)", code)
	}
	// The same approval delivered again is recorded once and used.
	sealed, code := w.run(approve, nil, "resume", runID, "-", "--json")
	if code != 0 || str(sealed, "outcome") != "completed" {
		t.Fatalf("got %d %v", code, sealed)
	}
	read, _ = w.run("", nil, "history", runID, "--json")
	admitted := 0
	for _, ev := range get(read, "events", "decisions").([]any) {
		if str(ev, "type") == "decision.admitted" && str(ev, "data", "address") == "approve" {
			admitted++
		}
	}
	if admitted != 1 {
		t.Fatalf("the approval must be recorded once, was recorded %d times", admitted)
	}
	verify, code := w.run("", nil, "verify", str(sealed, "receipt_id"), "--json")
	if code != 0 || str(verify, "status") != "verified" {
		t.Fatalf("verify: %v", verify)
	}
}

func TestTwoResumersOneDrives(t *testing.T) {
	w := newWorkspace(t, skillFiles("gated", gatedSkill))
	paused, _ := w.run("", nil, "skill", "./gated", "--json")
	runID := str(paused, "run_id")
	gate, _ := w.run(answerDoc("answers", "draft", str(paused, "requests", "0", "request_digest"), `"value":{"text":"v1"}`), nil, "resume", runID, "-", "--json")
	approve := answerDoc("approvals", "approve", str(gate, "requests", "0", "request_digest"), `"approved":true,"reason":"yes"`)
	outs := make([]bytes.Buffer, 2)
	cmds := make([]*exec.Cmd, 2)
	for i := range cmds {
		cmds[i] = w.cmd(approve, nil, "resume", runID, "-", "--json")
		cmds[i].Stdout = &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	refused, completed := 0, 0
	for i, c := range cmds {
		c.Wait()
		var doc map[string]any
		json.Unmarshal(outs[i].Bytes(), &doc)
		switch {
		case str(doc, "error", "code") == "run_driven_elsewhere":
			refused++
		case str(doc, "outcome") == "completed":
			completed++
		default:
			// The second may also arrive after the first sealed: then it
			// brings only what the run took, and gets the sealed envelope.
			t.Logf("resumer %d: %s", i, outs[i].String())
		}
	}
	if refused != 1 || completed != 1 {
		t.Fatalf("want exactly one driver and one refusal, got %d completed, %d refused", completed, refused)
	}
}

// The death of the driver's parent interrupts the driver at once, and no
// process it supervises outlives it: the command in flight (here blocked
// on a fifo) is gone with its process group.
func TestParentDeathInterruptsTheDriver(t *testing.T) {
	w := newWorkspace(t, skillFiles("slow", slowSkill))
	pidFile := filepath.Join(w.dir, "runx.pid")
	parent := exec.Command("sh", "-c", `"$RUNX" skill ./slow --json > /dev/null & echo $! > "$PIDFILE"; wait`)
	parent.Dir = w.dir
	parent.Env = append(append([]string{}, w.env...), "RUNX="+filepath.Join(binDir, "runx"), "PIDFILE="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill the parent once step one's command is in flight (its mark).
	waitForLine(t, filepath.Join(w.dir, "count"))
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if pid == 0 {
		t.Fatal("no runx pid")
	}
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("runx outlived its parent")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The fifo's reader is the supervised command: once nothing holds it
	// open for reading, a non-blocking open for writing fails.
	for {
		f, err := os.OpenFile(filepath.Join(w.dir, "gate"), os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			break
		}
		f.Close()
		if time.Now().After(deadline) {
			t.Fatal("the supervised command outlived its driver")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A driver killed outright (SIGKILL, no cleanup of its own) still leaves no
// supervised process behind: its plugins die with it, and each takes the
// process groups it supervises.
func TestKilledDriverLeavesNoOrphan(t *testing.T) {
	w := newWorkspace(t, skillFiles("slow", slowSkill))
	c := w.cmd("", nil, "skill", "./slow", "--json")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForLine(t, filepath.Join(w.dir, "count"))
	plugins := childrenOf(t, c.Process.Pid)
	if len(plugins) == 0 {
		t.Fatal("the driver has no plugin processes to watch")
	}
	c.Process.Kill()
	c.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range plugins {
		for syscall.Kill(pid, 0) == nil && !zombie(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("plugin process %d outlived its killed driver", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for {
		f, err := os.OpenFile(filepath.Join(w.dir, "gate"), os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			break
		}
		f.Close()
		if time.Now().After(deadline) {
			t.Fatal("the supervised command outlived its killed driver")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childrenOf lists the pids whose parent is pid, from /proc.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// zombie reports whether pid has exited and only waits to be reaped.
func zombie(pid int) bool {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// SIGINT interrupts at once (exit 130), and with --json runx still prints
// exactly one JSON document.
func TestSIGINTWithJSONPrintsOneDocument(t *testing.T) {
	w := newWorkspace(t, skillFiles("slow", slowSkill))
	var out bytes.Buffer
	c := w.cmd("", nil, "skill", "./slow", "--json")
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForLine(t, filepath.Join(w.dir, "count"))
	c.Process.Signal(syscall.SIGINT)
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v\n%s", err, out.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not a JSON document: %v\n%q", err, out.String())
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON document: %q", out.String())
	}
	if code := str(doc, "error", "code"); code != "interrupted" && str(doc, "status") != "stopped" {
		t.Fatalf("want the interruption said in the document, got %v", doc)
	}
}

// A SIGTERM while a for_each's command item is in flight stops the step
// rather than failing it: the run says stopped, a resume waits at the
// item's retry, and a person's yes completes it.
func TestSIGTERMStopsAFanOutItem(t *testing.T) {
	w := newWorkspace(t, skillFiles("fan", `minimum_runx: 0.1.0
methods:
  go:
    inputs: { items: { type: array, default: [1] } }
    steps:
      - id: each
        for_each: $input.items
        tool: { command: sh, args: ["-c", "if [ -e ../go ]; then echo one >> ../count; else mkfifo ../gate; echo one >> ../count; cat ../gate; fi; printf '{}'"] }
`))
	var out bytes.Buffer
	c := w.cmd("", nil, "skill", "./fan", "--json")
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForLine(t, filepath.Join(w.dir, "count"))
	c.Process.Signal(syscall.SIGTERM)
	err := c.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 143 {
		t.Fatalf("want exit 143, got %v\n%s", err, out.String())
	}
	var env map[string]any
	json.Unmarshal(out.Bytes(), &env)
	if str(env, "status") != "stopped" {
		t.Fatalf("want a stopped envelope, got %s", out.String())
	}
	os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644)
	paused, _ := w.run("{}", nil, "resume", str(env, "run_id"), "-", "--json")
	if str(paused, "requests", "0", "address") != "each[0]/retry" {
		t.Fatalf("the stopped item may have acted: a resume waits at its retry, got %v", paused)
	}
	yes := answerDoc("approvals", "each[0]/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", str(env, "run_id"), "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("resume: %d %v", code, done)
	}
}
