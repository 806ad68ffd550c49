package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
)

// A pending write is shown as its diff, line by line, with what the run
// holds escaped: an escape sequence or a bidirectional override in a diff
// reaches the terminal as its \u escape, never as itself.
func TestPendingShowsTheDiffEscaped(t *testing.T) {
	payload, _ := json.Marshal(map[string]any{
		"gate": "floor", "gate_type": "tool", "rule": "effects ask", "step_id": "w", "capability": "fs.write",
		"input": map[string]any{"path": "a.txt"},
		"edit": map[string]any{"changes": []any{map[string]any{
			"op": "modify", "path": "a.txt",
			"diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\x1b[2K\x1b[1A\u202eevil\n",
		}}},
	})
	var out bytes.Buffer
	printPending(&out, "run_x", contract.Request{Address: "w", Kind: contract.RequestApproval, RequestDigest: "sha256:d", Payload: payload})
	got := out.String()
	for _, want := range []string{
		"  waiting w (approval) sha256:d\n",
		"    modify:   a.txt\n",
		"      -old\n",
		"      +new\\u001b[2K\\u001b[1A\\u202eevil\n",
		"    approve: runx resume run_x --approve 'w@sha256:d' --reason '<why>'\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\u202e") {
		t.Fatalf("a control character reached the output:\n%q", got)
	}
}

// An operation's approval is shown with its summary and quoted cost, a
// command's with its exact argv and directory, and a payload kept apart
// with the command that prints it.
func TestPendingShowsOperationsCommandsAndKeptPayloads(t *testing.T) {
	op, _ := json.Marshal(map[string]any{
		"step_id": "pay", "gate": "operation:sha256:i", "operation": "acme.charge", "reason": "money moves",
		"operator_summary": map[string]any{"text": "create acme 1 (charge) at /charges", "quoted_usd_micro": 2500},
	})
	cmd, _ := json.Marshal(map[string]any{
		"step_id": "make", "gate": "floor", "rule": "effects ask",
		"command": map[string]any{"argv": []string{"sh", "-c", "echo a > b"}, "cwd": "/w/s", "environment": []string{}},
	})
	var out bytes.Buffer
	printPending(&out, "run_x", contract.Request{Address: "pay", Kind: contract.RequestApproval, RequestDigest: "sha256:o", Payload: op})
	printPending(&out, "run_x", contract.Request{Address: "make", Kind: contract.RequestApproval, RequestDigest: "sha256:c", Payload: cmd})
	printPending(&out, "run_x", contract.Request{Address: "big", Kind: contract.RequestApproval, RequestDigest: "sha256:b",
		PayloadArtifact: &contract.ArtifactDescriptor{Bytes: 70000}})
	got := out.String()
	for _, want := range []string{
		"    operation: acme.charge\n",
		"    summary:  create acme 1 (charge) at /charges\n",
		"    cost:     2500 micro-USD quoted\n",
		"    argv:     [\"sh\",\"-c\",\"echo a > b\"]\n",
		"    dir:      /w/s\n",
		"    its payload (70000 bytes) is kept apart: runx history run_x --payload big\n",
		"    decline: runx resume run_x --decline 'big@sha256:b' --reason '<why>'\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
