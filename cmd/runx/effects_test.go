package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// appendSkill's step appends a line to ../count and, the first time (no
// ../go yet), blocks on a fifo nobody writes, so the test can kill its
// driver while the effect is done and its outcome is not recorded.
const appendSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: one
        tool: { command: sh, args: ["-c", "echo one >> ../count; if [ ! -e ../go ]; then mkfifo ../gate; cat ../gate; fi; printf '{\"one\":true}'"] }
      - id: two
        tool: { command: sh, args: ["-c", "echo two >> ../count; printf '{\"two\":true}'"] }
`

// killMidCommand starts ./app, SIGKILLs its driver once step one's command
// has appended its line, and returns the run's id.
func killMidCommand(t *testing.T, w *workspace) string {
	t.Helper()
	c := w.cmd("", nil, "skill", "./app", "--json")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForLine(t, filepath.Join(w.dir, "count"))
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	return latestRun(t, w)
}

func countFile(t *testing.T, w *workspace) string {
	t.Helper()
	raw, _ := os.ReadFile(filepath.Join(w.dir, "count"))
	return string(raw)
}

// A command step its driver was killed in (SIGKILL: the effect happened,
// its outcome was never recorded) is not run again by the next resume: it
// waits at one/retry, saying resending is not safe, and the effect stays
// single. {"retry": true} runs it again.
func TestKilledCommandWaitsAtRetry(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", appendSkill))
	runID := killMidCommand(t, w)
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paused, code := w.run("{}", nil, "resume", runID, "-", "--json")
	if code != 0 || str(paused, "status") != "needs_approval" || str(paused, "requests", "0", "address") != "one/retry" {
		t.Fatalf("a command cut short must wait at its retry: %d %v", code, paused)
	}
	payload := get(paused, "requests", "0", "payload")
	if get(payload, "resend_safe") != false || str(payload, "gate") != "retry" || !strings.Contains(str(payload, "why"), "no outcome was recorded") {
		t.Fatalf("the retry request must say resending is not safe and why: %v", payload)
	}
	if got := countFile(t, w); got != "one\n" {
		t.Fatalf("nothing may run again before a person decides; count file: %q", got)
	}
	// A resume with no answer asks again, and still runs nothing.
	again, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	if str(again, "requests", "0", "address") != "one/retry" || countFile(t, w) != "one\n" {
		t.Fatalf("asked again: %v, count %q", again, countFile(t, w))
	}
	yes := answerDoc("approvals", "one/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("retried: %d %v", code, done)
	}
	if got := countFile(t, w); got != "one\none\ntwo\n" {
		t.Fatalf("a person's yes runs it once more, then step two once; count file: %q", got)
	}
}

// {"retry": false} leaves the cut-short command failed with
// retry_declined, and runs nothing.
func TestKilledCommandDeclinedRetryFails(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", appendSkill))
	runID := killMidCommand(t, w)
	paused, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	no := answerDoc("approvals", "one/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":false}`)
	done, code := w.run(no, nil, "resume", runID, "-", "--json")
	if code != 1 || str(done, "outcome") != "failed" || str(done, "error", "code") != "retry_declined" {
		t.Fatalf("declined: %d %v", code, done)
	}
	if got := countFile(t, w); got != "one\n" {
		t.Fatalf("a declined retry runs nothing; count file: %q", got)
	}
}

// A call inside a script is claimed the same way: a command.execute the
// driver was killed in waits at <step>/<n>/retry, and runs again only on
// a person's yes.
func TestKilledScriptCallWaitsAtItsRetry(t *testing.T) {
	files := skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: build
        script:
          module: build.mjs
          max_calls: 2
          calls: { tools: [command.execute] }
`)
	files["app/build.mjs"] = `export default async function (input, ctx) {
  const r = await ctx.call("command.execute", { argv: ["sh", "-c", "echo one >> count; if [ ! -e go ]; then mkfifo gate; cat gate; fi"] });
  return { exit: r.exit_code };
}
`
	w := newWorkspace(t, files)
	runID := killMidCommand(t, w)
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paused, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	if str(paused, "status") != "needs_approval" || str(paused, "requests", "0", "address") != "build/0/retry" || countFile(t, w) != "one\n" {
		t.Fatalf("the script's cut-short call must wait at its retry: %v, count %q", paused, countFile(t, w))
	}
	yes := answerDoc("approvals", "build/0/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" || countFile(t, w) != "one\none\n" {
		t.Fatalf("retried: %d %v, count %q", code, done, countFile(t, w))
	}
}

// process.start declares that the same call sent again returns the same
// process (a start is keyed by its call): a driver killed after the start,
// before its outcome was recorded, is followed by one that sends it again
// and gets the same process, not a second one. The effect stays single.
func TestKilledProcessStartIsNotStartedTwice(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: serve
        tool: process.start
        inputs: { command: sh, args: ["-c", "echo one >> count; sleep 60"], max_seconds: 120 }
`))
	if _, code := w.run("", []string{"RUNX_TEST_CRASH_AT=call_answered"}, "skill", "./app", "--json"); code != 137 {
		t.Fatalf("the crash hook did not stop the driver (exit %d)", code)
	}
	runID := latestRun(t, w)
	waitForLine(t, filepath.Join(w.dir, "count"))
	done, code := w.run("{}", nil, "resume", runID, "-", "--json")
	id := str(done, "result", "process_id")
	if code != 0 || str(done, "outcome") != "completed" || id == "" {
		t.Fatalf("resume: %d %v", code, done)
	}
	t.Cleanup(func() { w.run("", nil, "process", "stop", id, "--json") })
	listed, _ := w.run("", nil, "process", "list", "--json")
	if procs, _ := get(listed, "processes").([]any); len(procs) != 1 || str(procs[0], "process_id") != id {
		t.Fatalf("one start, one process: %v", listed)
	}
	if got := countFile(t, w); got != "one\n" {
		t.Fatalf("the process ran once; count file: %q", got)
	}
}

// A child run's command cut short waits the same way, at the child's
// address as the root sees it (<step>#<child step>/retry), and the
// person's yes reaches it there.
func TestKilledChildCommandWaitsAtItsRetry(t *testing.T) {
	files := skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: sub
        skill: ./child
`)
	files["app/child/SKILL.md"] = strings.Replace(manual, "%s", "child", 1)
	files["app/child/run.yaml"] = strings.ReplaceAll(appendSkill, "../", "../../")
	w := newWorkspace(t, files)
	runID := killMidCommand(t, w)
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paused, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	addr := str(paused, "requests", "0", "address")
	if str(paused, "status") != "needs_approval" || addr != "sub#one/retry" || countFile(t, w) != "one\n" {
		t.Fatalf("the child's cut-short command must wait at its retry: %v, count %q", paused, countFile(t, w))
	}
	yes := answerDoc("approvals", addr, str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" || countFile(t, w) != "one\none\ntwo\n" {
		t.Fatalf("retried: %d %v, count %q", code, done, countFile(t, w))
	}
}
