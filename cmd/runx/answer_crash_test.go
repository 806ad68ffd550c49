package main

import (
	"os"
	"path/filepath"
	"testing"
)

// answeredSkill's step a answers about two hundred bytes; step b appends
// a line to ../count and, the first time (no ../go yet), blocks on a fifo
// nobody writes, so its driver can be killed with a's answer counted and
// no pause since; b answers about a hundred bytes once it runs through.
const answeredSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: a
        tool: { module: m.mjs }
      - id: b
        tool: { command: sh, args: ["-c", "echo one >> ../count; if [ ! -e ../go ]; then mkfifo ../gate; cat ../gate; fi; printf '{\"b\":true}'"] }
`

// The bytes a run's plugins answered survive a SIGKILL of its driver
// between pauses: each unit's record keeps the tree's count, so the resume
// goes on from what step a answered. Under a bound of 250 bytes, step b's
// answer then takes the run past it; before, the count restarted at zero
// (nothing was kept since no pause) and b's retry completed the run.
func TestKilledRunKeepsItsAnswerCount(t *testing.T) {
	files := skillFiles("app", answeredSkill)
	files["app/m.mjs"] = `export default function () { return { text: "x".repeat(200) }; }`
	w := newWorkspace(t, files)
	bound := []string{"RUNX_MAX_PLUGIN_ANSWER_BYTES=250"}
	c := w.cmd("", bound, "skill", "./app", "--json")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForLine(t, filepath.Join(w.dir, "count"))
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	runID := latestRun(t, w)
	if err := os.WriteFile(filepath.Join(w.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paused, _ := w.run("{}", bound, "resume", runID, "-", "--json")
	if str(paused, "requests", "0", "address") != "b/retry" {
		t.Fatalf("the killed command must wait at its retry: %v", paused)
	}
	yes := answerDoc("approvals", "b/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, bound, "resume", runID, "-", "--json")
	if code == 0 || str(done, "outcome") != "failed" || str(done, "error", "code") != "plugin_answer_too_large" {
		t.Fatalf("step a's answer must still count after the kill, so b's takes the run past 250 bytes: %d %v", code, done)
	}
}
