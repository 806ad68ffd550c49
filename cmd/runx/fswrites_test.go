package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
)

const bundleSkill = `minimum_runx: 0.1.0
methods:
  bundle:
    description: Replace two files as one bundle.
    inputs:
      a: { type: string, required: true }
      b: { type: string, required: true }
    steps:
      - id: apply
        tool: fs.apply_bundle
        inputs:
          changes:
            - { path: a.txt, content: new-a, expected_digest: $input.a }
            - { path: b.txt, content: new-b, expected_digest: $input.b }
  write:
    description: Replace one file bound to its digest.
    inputs:
      content: { type: string, required: true }
      expected: { type: string, required: true }
    steps:
      - id: write
        tool: fs.write
        inputs: { path: shared.txt, content: $input.content, expected_digest: $input.expected }
`

func digestOf(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return canon.DigestBytes(raw)
}

func bundleWorkspace(t *testing.T) *workspace {
	w := newWorkspace(t, skillFiles("files", bundleSkill))
	for name, body := range map[string]string{"a.txt": "old-a", "b.txt": "old-b", "shared.txt": "v0"} {
		os.WriteFile(filepath.Join(w.dir, name), []byte(body), 0o644)
	}
	return w
}

// A bundle whose driver dies between two renames (file plugin and kernel
// alike, as a power cut would) is rolled back whole by the run's next
// driver, here its close; a resume instead lands it whole.
func TestBundleInterruptedBetweenRenamesIsRolledBackWhole(t *testing.T) {
	for _, next := range []string{"close", "resume"} {
		t.Run(next, func(t *testing.T) {
			w := bundleWorkspace(t)
			a, b := digestOf(t, filepath.Join(w.dir, "a.txt")), digestOf(t, filepath.Join(w.dir, "b.txt"))
			_, code := w.run("", []string{"RUNX_TEST_CRASH_AT=fs_between_renames"}, "skill", "./files#bundle", "-i", "a="+a, "-i", "b="+b, "--json")
			if code != 137 {
				t.Fatalf("the crash hook did not stop the driver (exit %d)", code)
			}
			got := [2]string{}
			for i, n := range []string{"a.txt", "b.txt"} {
				raw, _ := os.ReadFile(filepath.Join(w.dir, n))
				got[i] = string(raw)
			}
			if got != [2]string{"new-a", "old-b"} {
				t.Fatalf("the crash was not between the two renames: %q", got)
			}
			runID := latestRun(t, w)
			if next == "close" {
				closed, _ := w.run(`{"close":{"outcome":"declined"}}`, nil, "resume", runID, "-", "--json")
				if str(closed, "outcome") != "declined" {
					t.Fatalf("close: %v", closed)
				}
				for n, want := range map[string]string{"a.txt": "old-a", "b.txt": "old-b"} {
					if raw, _ := os.ReadFile(filepath.Join(w.dir, n)); string(raw) != want {
						t.Fatalf("%s after close = %q, want it rolled back to %q", n, raw, want)
					}
				}
				return
			}
			done, code := w.run("{}", nil, "resume", runID, "-", "--json")
			if code != 0 || str(done, "outcome") != "completed" {
				t.Fatalf("resume: %d %v", code, done)
			}
			for n, want := range map[string]string{"a.txt": "new-a", "b.txt": "new-b"} {
				if raw, _ := os.ReadFile(filepath.Join(w.dir, n)); string(raw) != want {
					t.Fatalf("%s after resume = %q, want %q", n, raw, want)
				}
			}
		})
	}
}

// latestRun reads the newest open run from the project's run records.
func latestRun(t *testing.T, w *workspace) string {
	t.Helper()
	hist, _ := w.run("", nil, "history", "--json")
	open, _ := get(hist, "open").([]any)
	latest := ""
	for _, r := range open {
		// Run ids begin with their time, so the greatest is the newest.
		latest = max(latest, str(r, "run_id"))
	}
	if latest == "" {
		t.Fatalf("no open run was recorded: %v", hist)
	}
	return latest
}

// Two runs changing one file against the same digest: exactly one passes.
func TestConcurrentWritesOnePassesTheDigestCheck(t *testing.T) {
	w := bundleWorkspace(t)
	expected := digestOf(t, filepath.Join(w.dir, "shared.txt"))
	var wg sync.WaitGroup
	outcomes := make([]map[string]any, 4)
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i], _ = w.run("", nil, "skill", "./files#write", "-i", "content=writer-"+string(rune('a'+i)), "-i", "expected="+expected, "--json")
		}()
	}
	wg.Wait()
	passed := 0
	for _, o := range outcomes {
		switch {
		case str(o, "outcome") == "completed":
			passed++
		case str(o, "error", "code") != "fs_digest_mismatch":
			t.Fatalf("a losing writer must be refused on the digest: %v", o)
		}
	}
	if passed != 1 {
		t.Fatalf("want exactly one writer to pass the digest check, got %d", passed)
	}
}

// Under effects none nothing changes; under ask the gate carries exactly what
// executes, and its payload digest is the stable-JSON digest a host
// recomputes from the payload.
func TestEditGateAndEffectsNone(t *testing.T) {
	w := bundleWorkspace(t)
	before := digestOf(t, filepath.Join(w.dir, "shared.txt"))
	refused, code := w.run("", nil, "skill", "./files#write", "-i", "content=x", "-i", "expected="+before, "--run-authority", `{"effects":"none"}`, "--json")
	if code != 1 || str(refused, "error", "code") != "effects_none_refused" || digestOf(t, filepath.Join(w.dir, "shared.txt")) != before {
		t.Fatalf("effects none: %d %v", code, refused)
	}
	gate, _ := w.run("", nil, "skill", "./files#write", "-i", "content=gated", "-i", "expected="+before, "--run-authority", `{"effects":"ask"}`, "--json")
	req := get(gate, "requests", "0")
	raw, _ := json.Marshal(get(req, "payload"))
	recomputed, err := canon.Digest(json.RawMessage(raw))
	if err != nil || recomputed != str(req, "summary", "payload_digest") {
		t.Fatalf("payload digest %s, host recomputes %s (%v)", str(req, "summary", "payload_digest"), recomputed, err)
	}
	edit := get(req, "payload", "edit")
	if edit == nil || str(req, "payload", "gate_type") != "tool" {
		t.Fatalf("the gate must carry the edit it would make: %v", req)
	}
	text, _ := json.Marshal(edit)
	for _, want := range []string{"-v0", "+gated", "shared.txt", before} {
		if !strings.Contains(string(text), want) {
			t.Fatalf("the gate's edit lacks %q: %s", want, text)
		}
	}
	if digestOf(t, filepath.Join(w.dir, "shared.txt")) != before {
		t.Fatal("a gated edit changed the file before approval")
	}
}
