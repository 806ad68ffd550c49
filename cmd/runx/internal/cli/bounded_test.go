package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A short value stays on its line; a long one is indented and cut at
// ValueLines lines of at most ValueLineBytes, saying how large it is and
// where the whole of it is; nothing a value holds reaches the terminal as a
// control character.
func TestPrintValueIsBounded(t *testing.T) {
	var out bytes.Buffer
	PrintValue(&out, "  result:  ", json.RawMessage(`{"a": 1}`), "W")
	if out.String() != "  result:  {\"a\":1}\n" {
		t.Fatalf("a short value: %q", out.String())
	}

	items := make([]int, 500)
	raw, _ := json.Marshal(map[string]any{"items": items})
	out.Reset()
	PrintValue(&out, "  result:  ", raw, "runx history run_x --json")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1+ValueLines+1 || lines[0] != "  result:" {
		t.Fatalf("%d lines, want the label, %d lines and how to get the rest:\n%s", len(lines), ValueLines, out.String())
	}
	want := fmt.Sprintf("    … (%d more lines, %d bytes in all; the whole value: runx history run_x --json)", 504-ValueLines, len(raw))
	if lines[len(lines)-1] != want {
		t.Fatalf("last line %q, want %q", lines[len(lines)-1], want)
	}

	long, _ := json.Marshal(map[string]any{"text": strings.Repeat("é", 400) + "\x1b[2J\u202e"})
	out.Reset()
	PrintValue(&out, "  result:  ", long, "W")
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) > 4+ValueLineBytes+len("…") {
			t.Fatalf("a line of %d bytes: %q", len(l), l)
		}
	}
	if !strings.Contains(out.String(), "bytes in all; the whole value: W)") {
		t.Fatalf("a cut line does not say where the whole value is:\n%s", out.String())
	}
	out.Reset()
	PrintValue(&out, "r: ", json.RawMessage("\"\u202e\x1b\""), "W")
	if strings.ContainsAny(out.String(), "\x1b\u202e") || !strings.Contains(out.String(), `\u202e`) {
		t.Fatalf("a control character reached the output: %q", out.String())
	}
}
