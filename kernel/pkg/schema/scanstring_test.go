package schema

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// scanAccepts runs the stream check's string scan over doc, a string and
// what follows it, and reports whether it accepted the string and where it
// stopped.
func scanAccepts(doc string) (bool, int) {
	w := streamWalker{data: []byte(doc)}
	_, err := w.scanString()
	return err == nil, w.pos
}

// refScan is the string scan byte by byte, as the grammar reads: where the
// string at the start of doc ends, or false.
func refScan(doc string) (bool, int) {
	for i := 1; i < len(doc); i++ {
		switch c := doc[i]; {
		case c == '"':
			return true, i + 1
		case c < 0x20:
			return false, 0
		case c == '\\':
			n := escapeLen([]byte(doc[i:]))
			if n == 0 {
				return false, 0
			}
			i += n - 1
		}
	}
	return false, 0
}

// agree checks the scan over doc against the byte-by-byte reading and
// encoding/json: both accept the same string, which ends in the same place.
func agree(t *testing.T, doc string) {
	t.Helper()
	got, end := scanAccepts(doc)
	want, wantEnd := refScan(doc)
	if got != want || (got && end != wantEnd) {
		t.Fatalf("%q: scan %v at %d, byte by byte %v at %d", doc, got, end, want, wantEnd)
	}
	if got && !json.Valid([]byte(doc[:end])) {
		t.Fatalf("%q: scan accepts %q, which encoding/json refuses", doc, doc[:end])
	}
	if !got && json.Valid([]byte(doc)) {
		t.Fatalf("%q: scan refuses a string encoding/json accepts", doc)
	}
}

// The string scan refuses exactly what encoding/json refuses, at every
// position within a word and across the 32-byte steps: escapes valid and
// not, raw control bytes, invalid UTF-8 and lone surrogates (which
// encoding/json accepts, decoding them to U+FFFD), quotes escaped and not.
func TestScanStringRefusesWhatJSONRefuses(t *testing.T) {
	bodies := []string{
		``, `a`, `plain text`, `\"`, `\\`, `\/`, `\b\f\n\r\t`, `\u00e9`, `\uD83D\uDE00`, `\uD83D`, `\uDE00x`,
		`\u00E9\u00e9`, `\x`, `\u12`, `\u12G4`, `\u`, `\`, `\\\"`, `a\\`, `\"\"`, "\x00", "\x1f", "\t", "\n",
		"\x7f", "\xff", "\xc3", "\xc3\xa9", "\xed\xa0\x80", "\xf4\x90\x80\x80", "日本語", `<&>`, `{"a":"b"}`,
		`\u0022`, `\u005c`, `\u005C"`, `"`, `\\"`,
	}
	for _, body := range bodies {
		for pad := 0; pad < 40; pad++ {
			for _, tail := range []string{``, `x`, `,"y"`} {
				s := `"` + strings.Repeat("p", pad) + body + strings.Repeat("q", pad%9) + `"`
				agree(t, s+tail)
				if json.Valid([]byte(s)) {
					if ok, end := scanAccepts(s + tail); !ok || end != len(s) {
						t.Fatalf("%q: scan %v at %d, want the whole string", s, ok, end)
					}
				}
			}
		}
	}
	for _, open := range []string{`"`, `"abc`, `"abc\"`, `"` + strings.Repeat("a", 70), `"a\u00e`, `"a\`} {
		if ok, _ := scanAccepts(open); ok {
			t.Fatalf("%q: an unclosed string was accepted", open)
		}
	}
}

// Random strings over an alphabet of everything the scan treats apart are
// read as the byte-by-byte reading and encoding/json read them.
func TestScanStringMatchesJSONOnRandomStrings(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	alphabet := []string{"a", "b", `"`, `\`, `\\`, `\"`, `\n`, `\u00`, "e9", "zz", "\x00", "\x1f", "\n", "\xc3", "\xa9", "é", " ", strings.Repeat("x", 31)}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		b.WriteByte('"')
		for k := r.Intn(24); k > 0; k-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		b.WriteByte('"')
		agree(t, b.String())
	}
}

// Nested strings under a schema: a document the check accepts decodes, and
// a bad string anywhere in it (a member name, an item, a nested value) makes
// ValidateJSON answer as encoding/json does.
func TestValidateJSONNestedStrings(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","additionalProperties":{"type":"string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("GET /x 200\\n", 500)
	for _, tc := range []struct {
		doc  string
		good bool
	}{
		{`{"a":[{"k":"` + long + `"},{"k\"2":"v\\\"w"}]}`, true},
		{`{"a":[{"k":"` + long + "\x01" + `"}]}`, false},
		{`{"a":[{"k\x02":"v"}]}`, false},
		{`{"a":[{"k":"` + long + `\q"}]}`, false},
		{`{"a":[{"k":"\uD800` + long + `"}]}`, true},
		{"{\"a\":[{\"k\":\"\xff\xfe" + long + "\"}]}", true},
		{`{"a":[{"k":"` + long + `}]}`, false},
	} {
		bad, err := s.ValidateJSON([]byte(tc.doc))
		if tc.good != (err == nil && bad == nil) || tc.good != json.Valid([]byte(tc.doc)) {
			t.Fatalf("%.60q...: violation %v, err %v; want good=%v", tc.doc, bad, err, tc.good)
		}
	}
}

// BenchmarkValidateJSONBase64Page checks a 4 MiB page as artifact.read
// answers it in base64: one long string with nothing to escape.
func BenchmarkValidateJSONBase64Page(b *testing.B) {
	s, _ := Compile([]byte(`{"type":"object","properties":{"data_base64":{"type":"string"}}}`))
	doc := []byte(`{"data_base64":"` + strings.Repeat("R0VUIC9hc3NldHMvYXBwLmpzIDIwMCAxODM0", 4<<20/36*4/3) + `"}`)
	b.SetBytes(int64(len(doc)))
	for i := 0; i < b.N; i++ {
		if bad, err := s.ValidateJSON(doc); err != nil || bad != nil {
			b.Fatal(bad, err)
		}
	}
}
