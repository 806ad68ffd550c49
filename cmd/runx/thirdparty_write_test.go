package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const notesSkill = `minimum_runx: 0.1.0
methods:
  put:
    description: Rewrite two notes as one change, through a third-party plugin.
    inputs:
      a: { type: string, required: true }
      b: { type: string, required: true }
    steps:
      - id: put
        tool: notes.put
        inputs:
          changes:
            - { path: notes/a.md, text: $input.a }
            - { path: notes/b.md, text: $input.b }
`

// notesWorkspace pins the third-party notes plugin (built only against
// sdk/) beside a skill that calls its write capability.
func notesWorkspace(t *testing.T) *workspace {
	t.Helper()
	w := newWorkspace(t, skillFiles("notes", notesSkill))
	for name, body := range map[string]string{"notes/a.md": "old a\n", "notes/b.md": "old b\n"} {
		os.MkdirAll(filepath.Join(w.dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(w.dir, name), []byte(body), 0o644)
	}
	raw, err := os.ReadFile(filepath.Join(binDir, "runx-plugin-notes"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.dir, ".runx", "plugins"), 0o755)
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "plugins", "runx-plugin-notes"), raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if doc, code := w.run("", nil, "plugin", "pin", "notes", "--json"); code != 0 {
		t.Fatalf("pin: %d %v", code, doc)
	}
	return w
}

func readNote(t *testing.T, w *workspace, name string) string {
	t.Helper()
	raw, _ := os.ReadFile(filepath.Join(w.dir, "notes", name))
	return string(raw)
}

// A third-party write capability that declares path inputs, Preview and
// Recover gets what fs.write gets: a floor gate carrying every diff, the
// workspace lock held alone while it writes, and rollback of a change a
// crash left half made.
func TestThirdPartyWriteIsGovernedLikeTheFileTools(t *testing.T) {
	t.Run("gate with diffs", func(t *testing.T) {
		w := notesWorkspace(t)
		gate, code := w.run("", nil, "skill", "./notes", "-i", "a=new a", "-i", "b=new b", "--run-authority", `{"effects":"ask"}`, "--json")
		if code != 0 || str(gate, "status") != "needs_approval" {
			t.Fatalf("want a paused run at the floor gate, got %d %v", code, gate)
		}
		req := get(gate, "requests", "0")
		if str(req, "payload", "gate_type") != "tool" || str(req, "payload", "capability") != "notes.put" {
			t.Fatalf("the gate must be the floor's tool gate for notes.put: %v", req)
		}
		edit, _ := json.Marshal(get(req, "payload", "edit"))
		for _, want := range []string{"runx.change_set.v1", "notes/a.md", "notes/b.md", "-old a", "+new a", "-old b", "+new b", "before_digest", "after_digest"} {
			if !strings.Contains(string(edit), want) {
				t.Fatalf("the gate's change set lacks %q: %s", want, edit)
			}
		}
		if readNote(t, w, "a.md") != "old a\n" || readNote(t, w, "b.md") != "old b\n" {
			t.Fatal("a gated change wrote before approval")
		}
		// Standing approval by path: edits.paths naming notes/ admits it.
		done, code := w.run("", nil, "skill", "./notes", "-i", "a=new a", "-i", "b=new b", "--run-authority",
			`{"effects":"ask","standing_approvals":[{"edits":{"paths":["notes"]}}]}`, "--json")
		if code != 0 || str(done, "outcome") != "completed" || readNote(t, w, "a.md") != "new a" {
			t.Fatalf("a standing approval of notes must admit the change: %d %v", code, done)
		}
	})
	t.Run("exclusive workspace lock", func(t *testing.T) {
		w := notesWorkspace(t)
		done, code := w.run("", nil, "skill", "./notes", "-i", "a=x", "-i", "b=y", "--json")
		if code != 0 || str(done, "outcome") != "completed" {
			t.Fatalf("%d %v", code, done)
		}
		if held, _ := get(done, "result", "exclusive_hold").(bool); !held {
			t.Fatalf("the write ran without the exclusive workspace lock's token in its binding: %v", done)
		}
	})
	t.Run("rollback on crash", func(t *testing.T) {
		w := notesWorkspace(t)
		failed, _ := w.run("", []string{"RUNX_TEST_CRASH_AT=notes_between_writes"}, "skill", "./notes", "-i", "a=half", "-i", "b=made", "--json")
		if str(failed, "error", "code") != "plugin_crashed" {
			t.Fatalf("want the step failed by the plugin's crash, got %v", failed)
		}
		if a, b := readNote(t, w, "a.md"), readNote(t, w, "b.md"); a != "old a\n" || b != "old b\n" {
			t.Fatalf("a change a crash left half made must be rolled back whole, got a=%q b=%q", a, b)
		}
	})
}
