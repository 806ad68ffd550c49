package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
)

const bigWriteSkill = `minimum_runx: 0.1.0
methods:
  write:
    description: Create one large file.
    inputs:
      content: { type: string, required: true }
    steps:
      - id: write
        tool: fs.write
        inputs: { path: big.txt, content: $input.content, create: true }
  open:
    description: Open a project artifact by its descriptor and page it.
    reach: inputs
    inputs:
      artifact: { type: object, required: true }
    steps:
      - id: open
        tool: artifact.open
        inputs: { artifact: $input.artifact }
      - id: read
        tool: artifact.read
        inputs: { ref: $steps.open.ref, encoding: utf8, max_bytes: 4194304 }
`

// An edit gate past 64 KiB end to end with the real binary and plugins:
// the paused envelope carries payload_artifact (a runx.artifact.v1
// descriptor, no host path) whose content digests to
// summary.payload_digest; runx history --json (a new process) shows the
// same descriptor; runx history --payload reads the content back held to
// its digest, and refuses it once changed; artifact.open checks and pages
// it from another run; the approval then lands the edit and seals.
func TestLargeEditGateRidesAsProjectArtifact(t *testing.T) {
	w := newWorkspace(t, skillFiles("big", bigWriteSkill))
	content := strings.Repeat("a line of the file the person approves\n", 2000)
	gate, _ := w.run("", nil, "skill", "./big#write", "-i", "content="+content, "--run-authority", `{"effects":"ask"}`, "--json")
	runID, req := str(gate, "run_id"), get(gate, "requests", "0")
	address, digest := str(req, "address"), str(req, "summary", "payload_digest")
	desc, _ := get(req, "payload_artifact").(map[string]any)
	if str(gate, "status") != "needs_approval" || get(req, "payload") != nil || desc == nil {
		t.Fatalf("a large edit gate rides inline or not at all: %v", req)
	}
	if str(desc, "schema") != "runx.artifact.v1" || str(desc, "digest") != digest || str(desc, "artifact_id") != digest ||
		!strings.HasPrefix(str(desc, "ref"), "art_") || get(desc, "bytes").(float64) <= 64<<10 {
		t.Fatalf("descriptor %v, payload digest %s", desc, digest)
	}
	if raw, _ := json.Marshal(gate); bytes.Contains(raw, []byte(w.dir)) {
		t.Fatal("the envelope names a host path")
	}
	descJSON, _ := json.Marshal(desc)

	hist, _ := w.run("", nil, "history", runID, "--json")
	if got, _ := json.Marshal(get(hist, "waiting", "0", "payload_artifact")); !bytes.Equal(got, descJSON) || get(hist, "waiting", "0", "payload") != nil {
		t.Fatalf("history shows %s, the pause showed %s", got, descJSON)
	}

	payload, err := w.cmd("", nil, "history", runID, "--payload", address).Output()
	if err != nil {
		t.Fatalf("history --payload: %v", err)
	}
	payload = bytes.TrimSuffix(payload, []byte("\n"))
	if d, err := canon.Digest(json.RawMessage(payload)); err != nil || d != digest || canon.DigestBytes(payload) != digest {
		t.Fatalf("a host recomputes %s over the payload read back, the summary says %s (%v)", d, digest, err)
	}
	if !strings.Contains(string(payload), "+a line of the file the person approves") || !strings.Contains(string(payload), `"gate_type":"tool"`) {
		t.Fatalf("the payload is not the edit that executes: %.300s", payload)
	}

	var page struct {
		Schema string `json:"schema"`
		Digest string `json:"digest"`
		Data   string `json:"data"`
		EOF    bool   `json:"eof"`
	}
	opened, code := w.run("", nil, "skill", "./big#open", "-i", "artifact="+string(descJSON), "--json")
	raw, _ := json.Marshal(get(opened, "result"))
	if code != 0 || json.Unmarshal(raw, &page) != nil || page.Digest != digest || page.Data != string(payload) || !page.EOF {
		t.Fatalf("artifact.open and artifact.read of the payload: %d %v", code, opened)
	}

	blob := filepath.Join(w.dir, ".runx", "artifacts", "blobs", strings.TrimPrefix(digest, "sha256:"))
	if err := os.Chmod(blob, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, bytes.Replace(payload, []byte("+a line"), []byte("+b line"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	refused, code := w.run("", nil, "history", runID, "--payload", address, "--json")
	if code == 0 || str(refused, "error", "code") != "payload_artifact_damaged" {
		t.Fatalf("a changed artifact is read back: %d %v", code, refused)
	}
	reopened, _ := w.run("", nil, "skill", "./big#open", "-i", "artifact="+string(descJSON), "--json")
	if !strings.Contains(func() string { b, _ := json.Marshal(reopened); return string(b) }(), "artifact_digest_mismatch") {
		t.Fatalf("artifact.open opened a changed artifact: %v", reopened)
	}
	if err := os.WriteFile(blob, payload, 0o400); err != nil {
		t.Fatal(err)
	}

	doc, _ := get(gate, "answers_template").(map[string]any)
	entry := get(doc, "approvals", address).(map[string]any)
	entry["approved"], entry["reason"] = true, "reviewed the artifact"
	answers, _ := json.Marshal(doc)
	done, code := w.run(string(answers), nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "status") != "sealed" || str(done, "outcome") != "completed" {
		t.Fatalf("the approved run: %d %v", code, done)
	}
	if got, _ := os.ReadFile(filepath.Join(w.dir, "big.txt")); string(got) != content {
		t.Fatal("the approved edit did not land whole")
	}
}

// --payload reads one request of one run: without a run id, or beside an
// --after cursor, it is refused with its code.
func TestHistoryPayloadFlagRefusals(t *testing.T) {
	w := newWorkspace(t, skillFiles("big", bigWriteSkill))
	if out, code := w.run("", nil, "history", "--payload", "write", "--json"); code == 0 || str(out, "error", "code") != "history_payload_needs_run" {
		t.Fatalf("--payload with no run: %d %v", code, out)
	}
	if out, code := w.run("", nil, "history", "run_x", "--payload", "write", "--after", "3", "--json"); code == 0 || str(out, "error", "code") != "history_flags_conflict" {
		t.Fatalf("--payload with --after: %d %v", code, out)
	}
}
