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
)

// stubbornSkill's step one ignores SIGTERM (its shell and the cat it waits
// in), writes its group's id to ../pid and its line to ../count, and then,
// the first time, blocks on a fifo nobody writes.
const stubbornSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: one
        tool: { command: sh, args: ["-c", "trap '' TERM; echo $$ > ../pid; echo one >> ../count; if [ ! -e ../go ]; then mkfifo ../gate; cat ../gate; fi; printf '{\"one\":true}'"] }
      - id: two
        tool: { command: sh, args: ["-c", "echo two >> ../count; printf '{\"two\":true}'"] }
`

// started is a runx driving ./app in its own process group, its step one in
// flight.
type started struct {
	c      *exec.Cmd
	out    bytes.Buffer
	errOut bytes.Buffer
	exited chan error
}

func startMidStep(t *testing.T, w *workspace, args ...string) *started {
	t.Helper()
	s := &started{c: w.cmd("", nil, append([]string{"skill", "./app"}, args...)...), exited: make(chan error, 1)}
	s.c.Stdout, s.c.Stderr = &s.out, &s.errOut
	// Its own group, as a shell's job is: a group signal then reaches runx
	// and its plugins, never the test.
	s.c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-s.c.Process.Pid, syscall.SIGKILL) })
	go func() { s.exited <- s.c.Wait() }()
	waitForLine(t, filepath.Join(w.dir, "count"))
	return s
}

// wait waits for runx to exit and returns its exit code.
func (s *started) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatal("runx did not exit after the signal")
	}
	return -1
}

// groupGone reports whether no live process of the group pgid is left (a
// zombie only waiting to be reaped counts as gone).
func groupGone(pgid int) bool { return len(groupMembers(pgid)) == 0 }

// groupMembers lists the live pids of a process group, from /proc.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(fields) > 3 && fields[3] == strconv.Itoa(pgid) && fields[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// commandGroup reads the group id step one's command wrote.
func commandGroup(t *testing.T, w *workspace) int {
	t.Helper()
	waitForLine(t, filepath.Join(w.dir, "pid"))
	raw, _ := os.ReadFile(filepath.Join(w.dir, "pid"))
	pgid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return pgid
}

// notFailed asserts the run's record holds no failed step and no seal.
func notFailed(t *testing.T, w *workspace, runID string) {
	t.Helper()
	read, _ := w.run("", nil, "history", runID, "--json")
	if s := str(read, "state"); s == "sealed" || s == "" {
		t.Fatalf("an interrupted run must stay open, got %v", read)
	}
	steps, _ := get(read, "steps").([]any)
	for _, s := range steps {
		if str(s, "status") != "success" {
			t.Fatalf("an interrupt must never record the step in flight as %s: %v", str(s, "status"), read)
		}
	}
}

// retryAndComplete resumes an interrupted run: step one, which may have
// acted, waits at its retry; a person's yes runs it again and the run
// completes.
func retryAndComplete(t *testing.T, w *workspace, runID string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paused, code := w.run("{}", nil, "resume", runID, "-", "--json")
	if code != 0 || str(paused, "requests", "0", "address") != "one/retry" {
		t.Fatalf("resume after the interrupt: %d %v", code, paused)
	}
	yes := answerDoc("approvals", "one/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("the interrupted run must complete on resume: %d %v", code, done)
	}
}

// namesTheRun asserts the document an interrupted runx printed names its
// run and the command that continues it.
func namesTheRun(t *testing.T, printed, runID string) {
	t.Helper()
	if !strings.Contains(printed, runID) || !strings.Contains(printed, "runx resume "+runID) {
		t.Fatalf("the interrupted document must name run %s and `runx resume %s`: %s", runID, runID, printed)
	}
}

// carriesTheStop asserts the document a stopped runx printed carries the
// stop and nothing else: the run it left (status stopped), or an error
// whose code is interrupted, never a failure the stop caused on its way
// (plugin_start_failed, plugin_crashed, a store closed under a call).
func carriesTheStop(t *testing.T, doc map[string]any) {
	t.Helper()
	code := str(doc, "error", "code")
	if code == "interrupted" || code == "" && str(doc, "status") == "stopped" {
		return
	}
	t.Fatalf("a stopped runx must report the stop (code interrupted, or the stopped run), got status %q code %q: %v", str(doc, "status"), code, doc)
}

// Ctrl-C, to runx alone or to its whole group, during a command that
// ignores SIGTERM: runx gives the cleanup window, kills the command (never
// orphaned), exits 130 and names the run and `runx resume`; the run is not
// failed, and a resume completes it (step one, which may have acted,
// waiting at its retry first).
func TestSIGINTMidStepLeavesTheRunResumable(t *testing.T) {
	for _, c := range []struct {
		name  string
		group bool
		sig   syscall.Signal
		code  int
	}{
		{"process SIGINT", false, syscall.SIGINT, 130},
		{"group SIGINT", true, syscall.SIGINT, 130},
		{"group SIGTERM", true, syscall.SIGTERM, 143},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t, skillFiles("app", stubbornSkill))
			s := startMidStep(t, w, "--json")
			pgid := commandGroup(t, w)
			target := s.c.Process.Pid
			if c.group {
				target = -target
			}
			sent := time.Now()
			if err := syscall.Kill(target, c.sig); err != nil {
				t.Fatal(err)
			}
			if code := s.wait(t); code != c.code {
				t.Fatalf("want exit %d, got %d\n%s\n%s", c.code, code, s.out.String(), s.errOut.String())
			}
			// The command ignores TERM: it is killed at the end of the
			// window, before runx is gone, never left behind.
			deadline := sent.Add(4 * time.Second)
			for !groupGone(pgid) {
				if time.Now().After(deadline) {
					t.Fatalf("the command that ignores SIGTERM outlived the cleanup window: %v", groupMembers(pgid))
				}
				time.Sleep(20 * time.Millisecond)
			}
			var doc map[string]any
			if err := json.Unmarshal(s.out.Bytes(), &doc); err != nil {
				t.Fatalf("stdout is not one JSON document: %v\n%s", err, s.out.String())
			}
			carriesTheStop(t, doc)
			runID := latestRun(t, w)
			namesTheRun(t, s.out.String(), runID)
			notFailed(t, w, runID)
			retryAndComplete(t, w, runID)
			if got := countFile(t, w); got != "one\none\ntwo\n" {
				t.Fatalf("count file: %q", got)
			}
		})
	}
}

// Human output names the run and `runx resume` too.
func TestSIGINTHumanOutputNamesTheRun(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", appendSkill))
	s := startMidStep(t, w)
	if err := s.c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := s.wait(t); code != 130 {
		t.Fatalf("want exit 130, got %d", code)
	}
	printed := s.out.String() + s.errOut.String()
	namesTheRun(t, printed, latestRun(t, w))
	if !strings.Contains(printed, "[interrupted]") && !strings.Contains(printed, "stopped") {
		t.Fatalf("the human output must carry the interrupt's code or say the run stopped: %s", printed)
	}
}

// A second Ctrl-C exits at once, while the first's cleanup still waits on
// a command that ignores SIGTERM; the run is still resumable, and the
// command is still not left behind (the plugin dies with runx and takes
// it).
func TestSecondSIGINTExitsAtOnce(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", stubbornSkill))
	s := startMidStep(t, w, "--json")
	pgid := commandGroup(t, w)
	if err := s.c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The first interrupt's cleanup waits on a command that ignores TERM
	// (1.5 s). Once runx has taken the first signal (it is no longer
	// pending), a second is a signal of its own, not merged into the first.
	for deadline := time.Now().Add(5 * time.Second); sigPending(s.c.Process.Pid, syscall.SIGINT); {
		if time.Now().After(deadline) {
			t.Fatal("runx never took the first SIGINT")
		}
	}
	// The runtime takes a signal off the OS's pending set before runx's
	// handler has read it, and two of a kind taken before that read are
	// one: so the second is sent again every 50 ms until runx exits. Each
	// resend is a second interrupt; the first cleanup's 1.5 s stays the
	// mark of one that was not taken as such.
	second := time.Now()
	stop := make(chan struct{})
	resent := make(chan struct{})
	go func() {
		defer close(resent)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			s.c.Process.Signal(syscall.SIGINT)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	code := s.wait(t)
	close(stop)
	<-resent
	if code != 130 {
		t.Fatalf("want exit 130, got %d", code)
	}
	if took := time.Since(second); took > time.Second {
		t.Fatalf("a second interrupt must exit at once, took %v", took)
	}
	deadline := time.Now().Add(3 * time.Second)
	for !groupGone(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("the command outlived runx: %v", groupMembers(pgid))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// It exits at once, printing nothing or what the first one printed.
	if s.out.Len() > 0 {
		var doc map[string]any
		if err := json.Unmarshal(s.out.Bytes(), &doc); err != nil {
			t.Fatalf("stdout is not one JSON document: %v\n%s", err, s.out.String())
		}
		carriesTheStop(t, doc)
	}
	runID := latestRun(t, w)
	notFailed(t, w, runID)
	retryAndComplete(t, w, runID)
}

// The death of the driver's parent interrupts it as Ctrl-C does: a command
// that ignores SIGTERM is killed, not orphaned.
func TestParentDeathKillsACommandIgnoringSIGTERM(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", stubbornSkill))
	parent := exec.Command("sh", "-c", `"$RUNX" skill ./app --json > /dev/null & wait`)
	parent.Dir = w.dir
	parent.Env = append(append([]string{}, w.env...), "RUNX="+filepath.Join(binDir, "runx"))
	parent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-parent.Process.Pid, syscall.SIGKILL) })
	pgid := commandGroup(t, w)
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(6 * time.Second)
	for !groupGone(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("the command that ignores SIGTERM outlived its driver: %v", groupMembers(pgid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processesWithEnv lists the live processes whose environment holds entry.
func processesWithEnv(entry string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || zombie(pid) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(raw, []byte{0}) {
			if string(kv) == entry {
				out = append(out, pid)
			}
		}
	}
	return out
}

// A run that pauses leaves no process behind: the plugins its method needs
// are started in the background while the kernel prepares the run, and the
// driver exits at the pause only once each of them is stopped, the ones
// still starting included. The plugins are found by the TMPDIR runx hands
// them.
func TestPausedRunLeavesNoPluginProcess(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: approve
        ask: { reason: Go on? }
      - id: build
        tool: { command: sh, args: ["-c", "printf '{}'"] }
      - id: shape
        tool: { module: shape.mjs }
`))
	if err := os.WriteFile(filepath.Join(w.dir, "app", "shape.mjs"), []byte("export default function () { return {}; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, code := w.run("", nil, "history", "--json"); code != 0 {
		t.Fatalf("history: %d", code)
	}
	for i := 0; i < 5; i++ {
		tmp := t.TempDir()
		paused, code := w.run("", []string{"TMPDIR=" + tmp}, "skill", "./app", "--json")
		if code != 0 || str(paused, "status") != "needs_approval" {
			t.Fatalf("want a paused run: %d %v", code, paused)
		}
		if left := processesWithEnv("TMPDIR=" + tmp); len(left) > 0 {
			t.Fatalf("run %d paused and left plugin processes %v behind", i, left)
		}
	}
}

// A third-party plugin's own children die with it: when runx stops the
// plugin (here at the end of the run), what is left of its process group
// is killed too.
func TestThirdPartyPluginChildrenDieWithIt(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: spawn
        tool: spawner/spawn
        inputs: {}
`))
	installSpawner(t, w)
	done, code := w.run("", nil, "skill", "./app", "--json")
	pid := int(get(done, "result", "pid").(float64))
	if code != 0 || pid == 0 {
		t.Fatalf("run: %d %v", code, done)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if syscall.Kill(pid, 0) == nil && !zombie(pid) {
		t.Fatalf("the plugin's child %d outlived the plugin runx stopped", pid)
	}
}

// installSpawner installs the spawner test plugin in w's project and pins it.
func installSpawner(t *testing.T, w *workspace) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(binDir, "runx-plugin-spawner"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.dir, ".runx", "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "plugins", "runx-plugin-spawner"), raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if doc, code := w.run("", nil, "plugin", "pin", "spawner", "--json"); code != 0 {
		t.Fatalf("pin: %d %v", code, doc)
	}
}

// A third-party plugin's own children die with it also when nothing of
// runx is left to stop it: the driver is SIGKILLed while a later step is in
// flight, and the child the plugin started in the earlier step is gone
// soon after (the plugin, told by its parent-death signal, kills its
// process group). The child is found by the TMPDIR runx hands its plugins.
func TestThirdPartyPluginChildrenDieWithAKilledDriver(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: spawn
        tool: spawner/spawn
        inputs: {}
      - id: hold
        tool: { command: sh, args: ["-c", "echo held >> ../count; mkfifo ../gate; cat ../gate"] }
`))
	installSpawner(t, w)
	// Not t.TempDir(): this test's long name would push the plugins' socket
	// paths under it past the 108 bytes a unix socket's path may have.
	tmp, err := os.MkdirTemp("", "spawner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	c := w.cmd("", []string{"TMPDIR=" + tmp}, "skill", "./app", "--json")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	waitForLine(t, filepath.Join(w.dir, "count"))
	var children []int
	for _, pid := range processesWithEnv("TMPDIR=" + tmp) {
		if comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); strings.TrimSpace(string(comm)) == "sleep" {
			children = append(children, pid)
		}
	}
	if len(children) != 1 {
		t.Fatalf("want the plugin's one child running, found %v", children)
	}
	child := children[0]
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	// The driver alone, as the OOM killer or kill -9 would.
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(child, 0) == nil && !zombie(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the plugin's child %d outlived the SIGKILLed driver", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Every third-party plugin's descendants die with a SIGKILLed driver, not
// only those of a plugin built with the sdk: runx starts each through its
// launcher, which outlives the plugin and ends everything below it. The
// foreign test plugin serves without the sdk's Serve, ignores SIGTERM, and
// starts a child in a session of its own that starts a grandchild; the
// driver is SIGKILLed while a later step is in flight, and all three are
// gone soon after.
func TestForeignPluginDescendantsDieWithAKilledDriver(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: spawn
        tool: foreign/spawn
        inputs: {}
      - id: hold
        tool: { command: sh, args: ["-c", "echo held >> ../count; mkfifo ../gate; cat ../gate"] }
`))
	pinPlugin(t, w, "foreign")
	// Not t.TempDir(): this test's long name would push the plugins' socket
	// paths under it past the 108 bytes a unix socket's path may have.
	tmp, err := os.MkdirTemp("", "foreign-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	c := w.cmd("", []string{"TMPDIR=" + tmp}, "skill", "./app", "--json")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	waitForLine(t, filepath.Join(w.dir, "count"))
	raw, err := os.ReadFile(filepath.Join(tmp, "foreign-pids"))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(raw)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			t.Fatalf("foreign-pids: %q", raw)
		}
		pids = append(pids, pid)
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	if len(pids) != 3 {
		t.Fatalf("want the plugin, its child and its grandchild, got %q", raw)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			t.Fatalf("process %d of %v is not running before the kill", pid, pids)
		}
	}
	// The driver alone, as the OOM killer or kill -9 would.
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil && !zombie(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the foreign plugin's %v (plugin, child, grandchild) outlived the SIGKILLed driver", pid, pids)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// sigPending reports whether sig is pending for pid (its process or any of
// its threads), from /proc.
func sigPending(pid int, sig syscall.Signal) bool {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		name, mask, ok := strings.Cut(line, ":")
		if !ok || name != "SigPnd" && name != "ShdPnd" {
			continue
		}
		bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
		if err == nil && bits&(1<<(uint(sig)-1)) != 0 {
			return true
		}
	}
	return false
}

// slowstartSkill's step two calls the slowstart test plugin, whose first
// start blocks before its handshake once it has left its marker.
const slowstartSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: one
        tool: { command: sh, args: ["-c", "echo one >> ../count; printf '{}'"] }
      - id: two
        tool: slowstart/hello
        inputs: {}
`

// An interrupt or a stop that lands while runx starts a plugin is reported
// as the stop, never as the plugin's failure to start: the document
// carries interrupted and names what continues, nothing is sealed
// (before, a SIGTERM here sealed the run blocked with plugin_start_failed),
// and the same start completes once the plugin starts.
func TestStopInPluginStart(t *testing.T) {
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{
		{"SIGTERM", syscall.SIGTERM, 143},
		{"SIGINT", syscall.SIGINT, 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t, skillFiles("app", slowstartSkill))
			pinPlugin(t, w, "slowstart")
			tmp := t.TempDir()
			s := &started{c: w.cmd("", []string{"TMPDIR=" + tmp}, "skill", "./app", "--json"), exited: make(chan error, 1)}
			s.c.Stdout, s.c.Stderr = &s.out, &s.errOut
			s.c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := s.c.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(-s.c.Process.Pid, syscall.SIGKILL) })
			go func() { s.exited <- s.c.Wait() }()
			// The plugin is starting: its marker is there, its handshake
			// never comes.
			waitForContent(t, filepath.Join(tmp, "slowstart-starting"), func([]byte) bool { return true })
			at := time.Now()
			if err := s.c.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			if code := s.wait(t); code != c.code {
				t.Fatalf("want exit %d, got %d\n%s\n%s", c.code, code, s.out.String(), s.errOut.String())
			}
			// The stop ends the start at once (it waited out the 15 s
			// start timeout before): well within the cleanup window and
			// a margin for a loaded machine.
			if took := time.Since(at); took > 5*time.Second {
				t.Fatalf("runx took %v to exit after the stop, want under 5s", took)
			}
			var doc map[string]any
			if err := json.Unmarshal(s.out.Bytes(), &doc); err != nil {
				t.Fatalf("stdout is not one JSON document: %v\n%s", err, s.out.String())
			}
			if str(doc, "error", "code") != "interrupted" {
				t.Fatalf("a stop during a plugin's start must be reported as the stop: %v", doc)
			}
			// It says what continues: the run it names, or, when the stop
			// landed before any run was recorded (the plugin is started
			// while the run is prepared), that no step ran.
			named := str(doc, "error", "detail", "run_id")
			if named != "" && !strings.Contains(s.out.String(), "runx resume "+named) || named == "" && !strings.Contains(str(doc, "error", "message"), "before it drove any run") {
				t.Fatalf("the document must say what continues: %s", s.out.String())
			}
			hist, _ := w.run("", nil, "history", "--json")
			if open, _ := get(hist, "open").([]any); named == "" && len(open) > 0 {
				t.Fatalf("the document said no run was driven, but one is open: %v", hist)
			}
			if runs, _ := get(hist, "runs").([]any); len(runs) > 0 {
				t.Fatalf("a stop during the start must seal nothing: %v", hist)
			}
			// The marker stays, so the plugin now starts: the same start
			// completes, and whatever the stop left open is still resumable.
			if open, _ := get(hist, "open").([]any); len(open) > 0 {
				runID := str(open[0], "run_id")
				done, code := w.run("{}", []string{"TMPDIR=" + tmp}, "resume", runID, "-", "--json")
				if code != 0 || str(done, "outcome") != "completed" {
					t.Fatalf("the stopped run must complete on resume: %d %v", code, done)
				}
				return
			}
			done, code := w.run("", []string{"TMPDIR=" + tmp}, "skill", "./app", "--json")
			if code != 0 || str(done, "outcome") != "completed" {
				t.Fatalf("the start must complete once the plugin starts: %d %v", code, done)
			}
		})
	}
}

// pinPlugin installs the test plugin runx-plugin-<name> into the
// workspace's plugins and pins it. A TMPDIR of its own holds the marker
// the slowstart plugin looks for, so the pin's start completes.
func pinPlugin(t *testing.T, w *workspace, name string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(binDir, "runx-plugin-"+name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.dir, ".runx", "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "plugins", "runx-plugin-"+name), raw, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "slowstart-starting"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if doc, code := w.run("", []string{"TMPDIR=" + tmp}, "plugin", "pin", name, "--json"); code != 0 {
		t.Fatalf("pin: %d %v", code, doc)
	}
}
