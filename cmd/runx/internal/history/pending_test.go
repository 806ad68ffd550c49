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
