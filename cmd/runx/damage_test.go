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

const tallySkill = `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: tally
        tool: { command: sh, args: ["-c", "printf '{\"ok\":true}'"] }
`

// A crash that tore the last line of the receipt index (here the root line
// of the latest run) breaks nothing: the next runx repairs the tail and
// indexes that root again from the run records, history lists every run,
// a new run appends whole lines, and every tree verifies.
func TestTornIndexTailIsRecoveredOnOpen(t *testing.T) {
	w := newWorkspace(t, skillFiles("tally", tallySkill))
	var receipts []string
	for range 2 {
		done, code := w.run("", nil, "skill", "./tally", "--json")
		if code != 0 {
			t.Fatalf("run: %d %v", code, done)
		}
		receipts = append(receipts, str(done, "receipt_id"))
	}
	index := filepath.Join(w.dir, ".runx", "receipts", "index.jsonl")
	info, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(index, info.Size()-7); err != nil {
		t.Fatal(err)
	}
	done, code := w.run("", nil, "skill", "./tally", "--json")
	if code != 0 {
		t.Fatalf("a run after the tear: %d %v", code, done)
	}
	receipts = append(receipts, str(done, "receipt_id"))
	hist, code := w.run("", nil, "history", "--json")
	runs, _ := get(hist, "runs").([]any)
	if code != 0 || len(runs) != 3 {
		t.Fatalf("history after a torn index lists %d runs, want 3: %v", len(runs), hist)
	}
	for _, id := range receipts {
		if rep, _ := w.run("", nil, "verify", id, "--json"); str(rep, "status") != "verified" {
			t.Fatalf("verify %s after a torn index: %v", id, rep)
		}
	}
	aside, _ := filepath.Glob(index + ".torn-*")
	if len(aside) != 1 {
		t.Fatalf("the torn bytes are kept beside the index: %v", aside)
	}
}

// One malformed key under the runx home's keys/trusted/ is skipped and
// reported by runx verify, and the tree signed by the home's own key still
// verifies; a receipt file swapped for a symlink to a copy outside the
// store is refused with receipt_file_unsafe, never followed.
func TestVerifySkipsABadTrustedKeyAndRefusesSymlinks(t *testing.T) {
	w := newWorkspace(t, skillFiles("tally", tallySkill))
	done, code := w.run("", nil, "skill", "./tally", "--json")
	if code != 0 {
		t.Fatalf("run: %d %v", code, done)
	}
	trusted := filepath.Join(w.dir, ".home", "keys", "trusted")
	if err := os.MkdirAll(trusted, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(trusted, "broken.pub"), []byte("not a key"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := str(done, "receipt_id")
	rep, code := w.run("", nil, "verify", root, "--json")
	if code != 0 || str(rep, "status") != "verified" || str(rep, "skipped_keys", "0", "code") != "key_malformed" {
		t.Fatalf("verify beside a bad trusted key: %d %v", code, rep)
	}
	step := str(done, "trace", "steps", "0", "receipt_id")
	file := filepath.Join(w.dir, ".runx", "receipts", "sha256-"+strings.TrimPrefix(step, "sha256:")+".json")
	outside := filepath.Join(t.TempDir(), "copy.json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, file); err != nil {
		t.Fatal(err)
	}
	rep, code = w.run("", nil, "verify", root, "--json")
	if code != 1 || str(rep, "status") != "invalid" || str(rep, "problems", "0", "code") != "receipt_file_unsafe" {
		t.Fatalf("verify through a symlinked receipt: %d %v", code, rep)
	}
}
