package main

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// twoStepSkill is a run of two command steps, the first slow enough that
// a terminal shows it working.
const twoStepSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: fetch
        tool: { command: sh, args: ["-c", "sleep 0.3; printf '{\"one\":true}'"] }
      - id: publish
        tool: { command: sh, args: ["-c", "printf '{\"two\":true}'"] }
`

// fanOutSkill is a slow step, then a fan-out over the three items it
// returns, one at a time.
const fanOutSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: fetch
        timeout_seconds: 30
        tool: { command: sh, args: ["-c", "sleep 0.3; printf '{\"list\":[1,2,3]}'"] }
      - id: each
        for_each: $steps.fetch.list
        concurrency: 1
        tool: { command: sh, args: ["-c", "sleep 0.15; printf '{}'"] }
`

// onTerminal is what one runx invocation printed when some of its streams
// were a pseudo-terminal.
type onTerminal struct {
	tty    string // what reached the terminal
	stdout string // stdout, when it was not the terminal
	stderr string // stderr, when it was not the terminal
	code   int
}

// runOnTerminal runs runx in w with stdout and/or stderr on a real
// pseudo-terminal (a pty), the others on pipes. env replaces the
// workspace's NO_COLOR setting: nil means NO_COLOR unset.
func runOnTerminal(t *testing.T, w *workspace, stdoutTTY, stderrTTY bool, env []string, args ...string) onTerminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	c := w.cmd("", nil, args...)
	c.Env = nil
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			c.Env = append(c.Env, kv)
		}
	}
	c.Env = append(c.Env, env...)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if stdoutTTY {
		c.Stdout = tty
	}
	if stderrTTY {
		c.Stderr = tty
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds its own copy
	read := make(chan string, 1)
	go func() {
		// Reading the pty ends (EIO) once every holder of its other end
		// has closed it.
		var b bytes.Buffer
		_, _ = io.Copy(&b, ptmx)
		read <- b.String()
	}()
	waitErr := c.Wait()
	var r onTerminal
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		r.code = exit.ExitCode()
	case waitErr != nil:
		t.Fatal(waitErr)
	}
	select {
	case r.tty = <-read:
	case <-time.After(20 * time.Second):
		t.Fatal("the terminal was never closed")
	}
	r.stdout, r.stderr = out.String(), errOut.String()
	return r
}

const escape = "\x1b["

// TestColourOnATerminal: human output on a terminal is coloured. The
// stdout wrapper (taint set, interrupt guard) once hid the terminal from
// the colour check, so colour never appeared.
func TestColourOnATerminal(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", twoStepSkill))
	r := runOnTerminal(t, w, true, false, nil, "skill", "./app")
	if r.code != 0 || !strings.Contains(r.tty, escape+"32m✓") {
		t.Fatalf("exit %d; want a green mark on the terminal, got %q (stderr %q)", r.code, r.tty, r.stderr)
	}
}

// TestNoColourWithNoColor: NO_COLOR and --no-color keep a terminal plain.
func TestNoColourWithNoColor(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", twoStepSkill))
	for name, tc := range map[string]struct {
		env  []string
		args []string
	}{
		"NO_COLOR":   {env: []string{"NO_COLOR=1"}, args: []string{"skill", "./app"}},
		"--no-color": {args: []string{"skill", "./app", "--no-color"}},
	} {
		r := runOnTerminal(t, w, true, false, tc.env, tc.args...)
		if r.code != 0 || !strings.Contains(r.tty, "✓") || strings.Contains(r.tty, escape) {
			t.Errorf("%s: exit %d; want a plain mark, got %q (stderr %q)", name, r.code, r.tty, r.stderr)
		}
	}
}

// TestProgressOnATerminal: with stderr on a terminal, a run shows the step
// running, the deadline its call waits under and a fan-out's items done of
// total there, on one line it
// overwrites and clears before the result; stdout stays plain.
func TestProgressOnATerminal(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", fanOutSkill))
	r := runOnTerminal(t, w, false, true, []string{"NO_COLOR=1"}, "skill", "./app")
	if r.code != 0 || !strings.Contains(r.stdout, "completed") || strings.Contains(r.stdout, escape) {
		t.Fatalf("exit %d; stdout %q", r.code, r.stdout)
	}
	for _, want := range []string{"\r" + escape + "K", "step fetch", "step each", "/3 items"} {
		if !strings.Contains(r.tty, want) {
			t.Errorf("the terminal shows no %q: %q", want, r.tty)
		}
	}
	// The call waits its 30 s timeout_seconds, and the short grace a
	// command has to be stopped.
	if !regexp.MustCompile(`step fetch .*\(times out in 3[0-9]s\)`).MatchString(r.tty) {
		t.Errorf("the terminal shows no deadline for step fetch: %q", r.tty)
	}
	if !strings.HasSuffix(r.tty, "\r"+escape+"K") {
		t.Errorf("the progress line is not cleared at the end: %q", r.tty)
	}
}

// TestNoProgressOffATerminal: no progress with --json, with --quiet, or
// when stderr is not a terminal.
func TestNoProgressOffATerminal(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", twoStepSkill))
	for name, args := range map[string][]string{
		"--json":  {"skill", "./app", "--json"},
		"--quiet": {"skill", "./app", "--quiet"},
	} {
		r := runOnTerminal(t, w, false, true, nil, args...)
		if r.code != 0 || r.tty != "" {
			t.Errorf("%s: exit %d; the terminal shows %q", name, r.code, r.tty)
		}
	}
	r := runOnTerminal(t, w, true, false, nil, "skill", "./app")
	if r.code != 0 || r.stderr != "" || strings.Contains(r.tty, "\r"+escape+"K") {
		t.Errorf("stderr not a terminal: exit %d; stderr %q; stdout %q", r.code, r.stderr, r.tty)
	}
}
