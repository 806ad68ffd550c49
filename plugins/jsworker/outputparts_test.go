package jsworker

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// Parts are at most 2 MiB, each ends on a character, and they join into the
// output; a part asked for again after the last was taken, or under another
// session, answers replay_needed.
func TestOutputPartsEndOnACharacter(t *testing.T) {
	out := []byte(`{"t":"` + strings.Repeat("日本é", 1<<20) + `"}`)
	parts := splitParts(out)
	if len(parts) < 3 {
		t.Fatalf("%d parts", len(parts))
	}
	for i, p := range parts {
		if len(p) > outputPartBytes || !utf8.Valid(p) {
			t.Fatalf("part %d: %d bytes, valid %v", i, len(p), utf8.Valid(p))
		}
	}
	if !bytes.Equal(bytes.Join(parts, nil), out) {
		t.Fatal("the parts do not join into the output")
	}
	first := keepParts("s1", out)
	if first.Status != ScriptDone || first.OutputParts != len(parts) || first.OutputBytes != len(out) || *first.Part != string(parts[0]) {
		t.Fatalf("first answer %+v", first.OutputParts)
	}
	for n := 1; n < len(parts); n++ {
		res := answerPart("s1", n)
		if !strings.Contains(string(res.Output), `"status":"part"`) {
			t.Fatalf("part %d: %.80s", n, res.Output)
		}
	}
	for _, res := range []string{string(answerPart("s1", 1).Output), string(answerPart("other", 1).Output)} {
		if !strings.Contains(res, `"status":"replay_needed"`) {
			t.Fatalf("%.80s", res)
		}
	}
}
