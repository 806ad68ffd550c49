package wslock

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a second runx process: under helperEnv it
// takes the lock as the environment says and reports on stdout.
const helperEnv = "WSLOCK_TEST_HELPER"

// report is what a helper prints.
type report struct {
	Acquired bool    `json:"acquired"`
	Joined   bool    `json:"joined"`
	Token    string  `json:"token,omitempty"`
	Error    string  `json:"error,omitempty"`
	Nested   *report `json:"nested,omitempty"`
}

func TestMain(m *testing.M) {
	if action := os.Getenv(helperEnv); action != "" {
		os.Exit(helper(action))
	}
	os.Exit(m.Run())
}

// helper takes the lock of WSLOCK_DIR in WSLOCK_MODE, joining the token in
// EnvToken as a runx started under a hold would. "try" gives up after
// WSLOCK_WAIT and reports; "hold" reports, then holds until stdin closes;
// "nested" also runs one more runx under its hold, as a command would.
func helper(action string) int {
	dir, mode := os.Getenv("WSLOCK_DIR"), Shared
	if os.Getenv("WSLOCK_MODE") == "exclusive" {
		mode = Exclusive
	}
	wait, _ := time.ParseDuration(os.Getenv("WSLOCK_WAIT"))
	if wait == 0 {
		wait = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	h, err := AcquireJoining(ctx, dir, mode, os.Getenv(EnvToken))
	r := report{Acquired: err == nil}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Joined, r.Token = h.Joined(), h.Token()
		defer h.Release()
	}
	if action == "nested" && err == nil {
		cmd := helperCommand(dir, mode, "try", "2s")
		cmd.Env = append(cmd.Env, EnvToken+"="+h.Token())
		out, err := cmd.Output()
		var nested report
		if err == nil {
			err = json.Unmarshal(out, &nested)
		}
		if err != nil {
			nested.Error = err.Error()
		}
		r.Nested = &nested
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	if action == "hold" {
		_, _ = io.Copy(io.Discard, os.Stdin)
	}
	return 0
}

func helperCommand(dir string, mode Mode, action, wait string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Only what the helper needs: a token in the parent's environment must
	// not leak into a child that should not have it.
	cmd.Env = []string{helperEnv + "=" + action, "WSLOCK_DIR=" + dir, "WSLOCK_MODE=" + mode.String(), "WSLOCK_WAIT=" + wait}
	cmd.Stderr = os.Stderr
	return cmd
}

// tryInChild runs another process that tries to take the lock within wait.
func tryInChild(t *testing.T, dir string, mode Mode, token string, wait time.Duration) report {
	t.Helper()
	cmd := helperCommand(dir, mode, "try", wait.String())
	if token != "" {
		cmd.Env = append(cmd.Env, EnvToken+"="+token)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	var r report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("helper printed %q: %v", out, err)
	}
	return r
}

// child is another process holding the lock.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	report
}

// holdInChild starts another process that takes the lock and holds it
// until released or killed.
func holdInChild(t *testing.T, dir string, mode Mode) *child {
	t.Helper()
	cmd := helperCommand(dir, mode, "hold", "10s")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { c.kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("holder: %v", err)
	}
	if err := json.Unmarshal([]byte(line), &c.report); err != nil || !c.Acquired {
		t.Fatalf("holder reported %q: %v", line, err)
	}
	return c
}

func (c *child) release() {
	c.stdin.Close()
	_ = c.cmd.Wait()
}

func (c *child) kill() {
	if c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		_ = c.cmd.Wait()
	}
}

func acquireWithin(t *testing.T, dir string, mode Mode, token string, wait time.Duration) (*Hold, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	h, err := AcquireJoining(ctx, dir, mode, token)
	if err == nil {
		t.Cleanup(func() { h.Release() })
	}
	return h, err
}

func mustAcquire(t *testing.T, dir string, mode Mode) *Hold {
	t.Helper()
	h, err := acquireWithin(t, dir, mode, "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func wantTimeout(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%s: want to wait until the deadline, got %v", what, err)
	}
}

const brief = 300 * time.Millisecond

func TestExclusiveHoldExcludesEveryone(t *testing.T) {
	dir := t.TempDir()
	holder := holdInChild(t, dir, Exclusive)
	if len(holder.Token) != 64 || holder.Joined {
		t.Fatalf("holder %+v", holder.report)
	}
	_, err := acquireWithin(t, dir, Exclusive, "", brief)
	wantTimeout(t, "a writer beside a writer", err)
	_, err = acquireWithin(t, dir, Shared, "", brief)
	wantTimeout(t, "a reader beside a writer", err)
	if r := tryInChild(t, dir, Shared, "", brief); r.Acquired || !strings.Contains(r.Error, "deadline") {
		t.Fatalf("a reader in a third process got in: %+v", r)
	}
	holder.release()
	start := time.Now()
	h := mustAcquire(t, dir, Exclusive)
	if time.Since(start) > time.Second || h.Joined() || len(h.Token()) != 64 || h.Token() == holder.Token {
		t.Fatalf("after release: %v, joined %v, token %q", time.Since(start), h.Joined(), h.Token())
	}
}

func TestReadersShareAndKeepWritersOut(t *testing.T) {
	dir := t.TempDir()
	reader := holdInChild(t, dir, Shared)
	if reader.Token != "" {
		t.Fatalf("a shared hold has no token: %+v", reader.report)
	}
	h := mustAcquire(t, dir, Shared)
	if h.Token() != "" || h.Mode() != Shared {
		t.Fatalf("hold %+v", h)
	}
	if r := tryInChild(t, dir, Shared, "", 5*time.Second); !r.Acquired || r.Joined {
		t.Fatalf("a third reader: %+v", r)
	}
	if r := tryInChild(t, dir, Exclusive, "", brief); r.Acquired {
		t.Fatalf("a writer got in beside readers: %+v", r)
	}
	reader.release()
	h.Release()
	if r := tryInChild(t, dir, Exclusive, "", 5*time.Second); !r.Acquired {
		t.Fatalf("a writer after the readers left: %+v", r)
	}
}

func TestProcessUnderAHoldJoinsItByToken(t *testing.T) {
	dir := t.TempDir()
	h := mustAcquire(t, dir, Exclusive)
	for _, mode := range []Mode{Exclusive, Shared} {
		start := time.Now()
		r := tryInChild(t, dir, mode, h.Token(), 5*time.Second)
		if !r.Acquired || !r.Joined || time.Since(start) > 2*time.Second {
			t.Fatalf("%s under the hold: %+v after %v", mode, r, time.Since(start))
		}
		if want := map[Mode]string{Exclusive: h.Token(), Shared: ""}[mode]; r.Token != want {
			t.Fatalf("%s joined hold passes on %q, want %q", mode, r.Token, want)
		}
	}
	// Another hold's token, or a made-up one, joins nothing.
	if r := tryInChild(t, dir, Exclusive, strings.Repeat("ab", 32), brief); r.Acquired {
		t.Fatalf("an unknown token joined: %+v", r)
	}
	h.Release()
	// Once the hold ends its token joins nothing: the lock is taken anew.
	if r := tryInChild(t, dir, Exclusive, h.Token(), 5*time.Second); !r.Acquired || r.Joined || r.Token == h.Token() {
		t.Fatalf("a released hold's token: %+v", r)
	}
}

func TestNestedRunxNeverWaitsOnItsOwnParent(t *testing.T) {
	dir := t.TempDir()
	// The kernel holds the lock alone and runs a command (a child); the
	// command starts runx (the child's child), which runs a command of its
	// own under the hold it joined. Nobody waits on an ancestor.
	h := mustAcquire(t, dir, Exclusive)
	cmd := helperCommand(dir, Exclusive, "nested", "2s")
	cmd.Env = append(cmd.Env, EnvToken+"="+h.Token())
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Joined || r.Nested == nil || !r.Nested.Acquired || !r.Nested.Joined || time.Since(start) > 3*time.Second {
		t.Fatalf("nested: %+v (%+v) after %v", r, r.Nested, time.Since(start))
	}
	// Without the token the same child would wait on its parent.
	if r := tryInChild(t, dir, Exclusive, "", brief); r.Acquired {
		t.Fatalf("a tokenless child got in: %+v", r)
	}
}

func TestCrashedHolderStrandsNothing(t *testing.T) {
	dir := t.TempDir()
	holder := holdInChild(t, dir, Exclusive)
	holder.kill()
	h := mustAcquire(t, dir, Exclusive)
	// The dead holder's token is stale: it joins nothing, even while a
	// live hold is in force.
	if r := tryInChild(t, dir, Shared, holder.Token, brief); r.Acquired {
		t.Fatalf("a dead holder's token joined the live hold: %+v", r)
	}
	h.Release()
	if _, err := os.Stat(holderPath(dir, holder.Token)); !os.IsNotExist(err) {
		t.Fatalf("the dead holder's marker is still there: %v", err)
	}
	if _, err := os.Stat(holderPath(dir, h.Token())); !os.IsNotExist(err) {
		t.Fatalf("a released hold left its marker: %v", err)
	}
}

func TestQueuedWriterIsNotStarvedByNewReaders(t *testing.T) {
	dir := t.TempDir()
	first := mustAcquire(t, dir, Shared)
	writer := make(chan *Hold, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h, err := Acquire(ctx, dir, Exclusive)
		if err != nil {
			h = nil
		}
		writer <- h
	}()
	// Wait until the writer has closed the turnstile.
	deadline := time.Now().Add(5 * time.Second)
	for {
		probe, err := acquireWithin(t, dir, Shared, "", 20*time.Millisecond)
		if err != nil {
			break
		}
		probe.Release()
		if time.Now().After(deadline) {
			t.Fatal("the writer never queued")
		}
	}
	if r := tryInChild(t, dir, Shared, "", brief); r.Acquired {
		t.Fatalf("a reader overtook the queued writer: %+v", r)
	}
	first.Release()
	w := <-writer
	if w == nil {
		t.Fatal("the writer did not get the lock once the reader left")
	}
	w.Release()
	mustAcquire(t, dir, Shared)
}

func TestCancelledWaitLeavesTheLockUsable(t *testing.T) {
	dir := t.TempDir()
	h := mustAcquire(t, dir, Exclusive)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := Acquire(ctx, dir, Exclusive); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	h.Release()
	// The cancelled writer let go of the turnstile: readers get in.
	mustAcquire(t, dir, Shared).Release()
	mustAcquire(t, dir, Exclusive)
}

func TestReleaseAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	h := mustAcquire(t, dir, Exclusive)
	if err := h.Release(); err != nil {
		t.Fatal(err)
	}
	if err := h.Release(); err != nil {
		t.Fatalf("a second release: %v", err)
	}
	holder, err := acquireWithin(t, dir, Exclusive, "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := AcquireJoining(context.Background(), dir, Shared, holder.Token())
	if err != nil || !sub.Joined() || sub.Release() != nil {
		t.Fatalf("joined in process: %+v %v", sub, err)
	}
	if _, err := Acquire(context.Background(), dir, Mode(7)); !errors.Is(err, ErrMode) {
		t.Fatalf("want ErrMode, got %v", err)
	}
	if Shared.String() != "shared" || Exclusive.String() != "exclusive" || Mode(0).String() != "Mode(0)" {
		t.Fatal("mode names")
	}
}
