package host

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// A start ends as soon as its caller's context does, or Close begins: the
// half-started plugin is killed with its group and the caller gets the
// context's error, instead of both waiting out the start timeout (15 s).
func TestStopDuringPluginStart(t *testing.T) {
	for _, c := range []struct {
		name string
		// run starts the plugin, waits for it to be starting (pid), stops
		// it, and returns how long the stop took and the caller's error.
		run func(t *testing.T, s *Supervisor, starting func() int) (time.Duration, error)
	}{
		{"caller cancels", func(t *testing.T, s *Supervisor, starting func() int) (time.Duration, error) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { _, _, err := s.Invoke(ctx, call("testslow.x", `{}`), 0); done <- err }()
			starting()
			at := time.Now()
			cancel()
			return time.Since(at), waitErr(t, done)
		}},
		{"caller waits on a prestart", func(t *testing.T, s *Supervisor, starting func() int) (time.Duration, error) {
			s.Prestart(context.Background(), "testslow")
			starting()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { _, _, err := s.Invoke(ctx, call("testslow.x", `{}`), 0); done <- err }()
			at := time.Now()
			cancel()
			err := waitErr(t, done)
			// The prestart's own start goes on until Close.
			s.Close()
			return time.Since(at), err
		}},
		{"close during a prestart", func(t *testing.T, s *Supervisor, starting func() int) (time.Duration, error) {
			s.Prestart(context.Background(), "testslow")
			starting()
			at := time.Now()
			s.Close()
			return time.Since(at), context.Canceled
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			s := newTestSupervisor(t)
			marker := filepath.Join(tmp, "testslow-starting")
			pid := 0
			starting := func() int {
				t.Helper()
				deadline := time.Now().Add(10 * time.Second)
				for time.Now().Before(deadline) {
					if raw, err := os.ReadFile(marker); err == nil && len(raw) > 0 {
						if pid, err = strconv.Atoi(string(raw)); err == nil {
							return pid
						}
					}
					time.Sleep(5 * time.Millisecond)
				}
				t.Fatal("the plugin never started")
				return 0
			}
			took, err := c.run(t, s, starting)
			t.Logf("returned %v after the stop", took)
			if took > 3*time.Second {
				t.Fatalf("the start took %v to end after the stop, want under 3s", took)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("want the context's error, got %v", err)
			}
			// The stop's code, not a failure of the plugin's.
			if code := hostCode(t, errOrHost(err)); code != string(errcode.Interrupted) {
				t.Fatalf("want %s (a stop; nothing was sent), got %s", errcode.Interrupted, code)
			}
			waitGone(t, pid)
		})
	}
}

func waitErr(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the call never returned")
		return nil
	}
}

// errOrHost lets the Close case, which has no caller error, pass the code
// check with the one a cancelled start answers.
func errOrHost(err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return startError("testslow", err)
}

// waitGone waits (bounded) for pid to be reaped, so a half-started plugin
// left running, or a zombie nobody waits for, fails the test.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin %d is still there after its start was stopped: %s", pid, bytes.TrimSpace(stat))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
