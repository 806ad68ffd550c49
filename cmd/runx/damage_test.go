package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const journaledSkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: first
        tool: fs.write
        inputs: { path: out/first.txt, content: first }
      - id: approve
        ask: { reason: Go on? }
      - id: last
        tool: fs.write
        inputs: { path: out/last.txt, content: last }
`

// A run whose file change journal is damaged cannot be resumed (its
// changes cannot be settled), but it is never trapped open: close seals it
// from its record alone and the seal names what could not be settled.
func TestCloseWorksWithADamagedFileJournal(t *testing.T) {
	w := newWorkspace(t, skillFiles("journaled", journaledSkill))
	paused, _ := w.run("", nil, "skill", "./journaled", "--json")
	runID := str(paused, "run_id")
	if str(paused, "status") != "needs_approval" || runID == "" {
		t.Fatalf("want the run paused at its gate: %v", paused)
	}
	journals, _ := filepath.Glob(filepath.Join(w.dir, ".runx", "journal", "bundles", "*", "*.json"))
	if len(journals) != 1 {
		t.Fatalf("want one file change journal, have %v", journals)
	}
	if err := os.WriteFile(journals[0], []byte(`{"schema":`), 0o600); err != nil {
		t.Fatal(err)
	}
	refused, code := w.run("{}", nil, "resume", runID, "-", "--json")
	if code == 0 || str(refused, "error", "code") != "fs_recover_failed" {
		t.Fatalf("a resume over a damaged journal is refused with fs_recover_failed: %d %v", code, refused)
	}
	closed, code := w.run(`{"close":{"outcome":"declined"}}`, nil, "resume", runID, "-", "--json")
	if str(closed, "outcome") != "declined" || str(closed, "seal_reason") != "host_closed" {
		t.Fatalf("close must seal the run from its record alone: %d %v", code, closed)
	}
	if msg := str(closed, "error", "message"); !strings.Contains(msg, "fs_recover_failed") {
		t.Fatalf("the seal must name what could not be settled: %v", closed)
	}
	rep, _ := w.run("", nil, "verify", str(closed, "receipt_id"), "--json")
	if str(rep, "status") != "verified" {
		t.Fatalf("the closed run's tree verifies: %v", rep)
	}
}

// A state.sqlite cut to zero bytes is refused with state_damaged by every
// command that reads run records, never read as an empty history.
func TestZeroLengthStateIsAnError(t *testing.T) {
	w := newWorkspace(t, skillFiles("journaled", journaledSkill))
	if _, code := w.run("", nil, "skill", "./journaled", "--json"); code != 0 {
		t.Fatalf("the run did not pause: exit %d", code)
	}
	if err := os.Truncate(filepath.Join(w.dir, ".runx", "state.sqlite"), 0); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"history", "--json"}, {"skill", "./journaled", "--json"}} {
		doc, code := w.run("", nil, args...)
		if code != 1 || str(doc, "error", "code") != "state_damaged" {
			t.Fatalf("runx %v over an empty state.sqlite: %d %v", args, code, doc)
		}
	}
}
