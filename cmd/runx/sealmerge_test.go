package main

import (
	"os"
	"path/filepath"
	"testing"
)

// helloFiles is examples/hello-world as a workspace package at ./hello.
func helloFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range []string{"SKILL.md", "run.yaml", "compose.mjs", "greeting.mjs"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "hello-world", name))
		if err != nil {
			t.Fatal(err)
		}
		files["hello/"+name] = string(raw)
	}
	return files
}

// An effect-free run's last step is recorded in its seal's transaction.
// The driver killed after that step settled (its receipt written) and
// before the seal commits leaves the run running with no step recorded;
// the next driver runs the step again, seals, and the tree verifies, with
// the step recorded once.
func TestCrashBeforeTheMergedSealCommitIsDrivenAgain(t *testing.T) {
	w := newWorkspace(t, helloFiles(t))
	if _, code := w.run("", []string{"RUNX_TEST_CRASH_AT=before_seal_commit"}, "skill", "./hello", "-i", "message=hi", "--json"); code != 137 {
		t.Fatalf("the crash hook did not stop the driver (exit %d)", code)
	}
	list, _ := w.run("", nil, "history", "--json")
	open, _ := get(list, "open").([]any)
	if len(open) != 1 || str(open[0], "state") != "running" {
		t.Fatalf("the run created before the crash must be open and running: %v", list)
	}
	runID := str(open[0], "run_id")
	read, _ := w.run("", nil, "history", runID, "--json")
	if steps, _ := get(read, "steps").([]any); len(steps) != 0 {
		t.Fatalf("the last step's record must commit with the seal, not before it: %v", steps)
	}
	sealed, code := w.run("{}", nil, "resume", runID, "-", "--json")
	if code != 0 || str(sealed, "status") != "sealed" || str(sealed, "outcome") != "completed" || str(sealed, "result", "greeting") != "hi, world" {
		t.Fatalf("the next driver must run the step again and seal: %d %v", code, sealed)
	}
	read, _ = w.run("", nil, "history", runID, "--json")
	steps, _ := get(read, "steps").([]any)
	if str(read, "state") != "sealed" || len(steps) != 1 || str(steps[0], "receipt_id") != str(sealed, "trace", "steps", "0", "receipt_id") {
		t.Fatalf("the sealed run must record its one step, the one its receipt names: %v", read)
	}
	verify, code := w.run("", nil, "verify", str(sealed, "receipt_id"), "--json")
	if code != 0 || str(verify, "status") != "verified" {
		t.Fatalf("verify: %v", verify)
	}
}
