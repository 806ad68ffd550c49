package journal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/credential"
)

// With the kernel's taint set as Scrub, no document the journal writes
// (step output and error, events, request payloads, decisions, the sealed
// envelope) holds a delivered value, and state.sqlite's bytes prove it.
func TestJournalWritesAreScrubbed(t *testing.T) {
	const secret = "tok-9d7c1e-journal"
	var taint credential.Taint
	taint.Add(secret)
	j := open(t)
	j.Scrub = taint.ScrubJSON
	ctx := context.Background()
	newRun(t, j, "r1")
	leak := json.RawMessage(`{"echo":"` + secret + `"}`)
	if err := j.RecordStep(ctx, &Step{RunID: "r1", Address: "a", StepID: "a", Status: "success", Output: leak, Error: leak}); err != nil {
		t.Fatal(err)
	}
	if err := j.AppendEvent(ctx, "r1", "calls", "call.completed", map[string]any{"output": "x " + secret}); err != nil {
		t.Fatal(err)
	}
	if err := j.Pause(ctx, "r1", []*Request{{Address: "g", Kind: "approval", RequestDigest: "sha256:d", Payload: leak}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Asks().AdmitDecisions(ctx, "r1", []*Decision{{Address: "g", Lane: "approvals", RequestDigest: "sha256:d", Value: leak}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Seal(ctx, "r1", "completed", "", "sha256:r", leak); err != nil {
		t.Fatal(err)
	}
	snap, err := j.Snapshot(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(snap, secret) || !strings.Contains(snap, credential.Redacted) {
		t.Fatalf("the journal kept the value or never saw it: %s", snap)
	}
	j.Close()
	for _, name := range []string{"state.sqlite", "state.sqlite-wal"} {
		raw, _ := os.ReadFile(filepath.Join(j.Dir(), name))
		if strings.Contains(string(raw), secret) {
			t.Fatalf("%s holds the value", name)
		}
	}
}
