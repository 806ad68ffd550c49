package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every byte value, split across pieces at every offset, decodes back to
// the text it was given.
func TestAppendStringRoundTrips(t *testing.T) {
	var b strings.Builder
	for c := 0; c < 0x80; c++ {
		b.WriteByte(byte(c))
	}
	b.WriteString("é 日本 \u2028 <&> plain text that runs past a word")
	text := b.String()
	for cut := 0; cut <= len(text); cut++ {
		doc := AppendString(nil, []byte(text[:cut]), []byte(text[cut:]))
		var got string
		if err := json.Unmarshal(doc, &got); err != nil || got != text {
			t.Fatalf("cut %d: %q (%v)", cut, doc, err)
		}
	}
}

// TestJSONStringRoundTrips checks the word-at-a-time escaper against every
// byte value in every position of a word.
func TestJSONStringRoundTrips(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		for pos := 0; pos < 11; pos++ {
			b := []byte("abcdefghijklmnopq")
			b[pos] = byte(c)
			var back string
			if err := json.Unmarshal(AppendString(nil, b[:9], b[9:]), &back); err != nil || back != string(b) {
				t.Fatalf("byte %#x at %d: %q (%v)", c, pos, back, err)
			}
		}
	}
	mixed := []byte("héllo \"wörld\"\n\x00\x1f\\ 日本語 tail")
	var back string
	if err := json.Unmarshal(AppendString(nil, mixed), &back); err != nil || back != string(mixed) {
		t.Fatalf("%q (%v)", back, err)
	}
}
