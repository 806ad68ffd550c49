package schema

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// streamSchemas are schemas of every keyword of the subset, nested, that the
// stream check is compared over.
var streamSchemas = []string{
	`true`, `false`, `{}`,
	`{"type":"string"}`, `{"type":"integer"}`, `{"type":["number","null"]}`, `{"type":"boolean"}`,
	`{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"integer"}}}}`,
	`{"type":"object","additionalProperties":false,"properties":{"a":{},"b":{"type":"object"}}}`,
	`{"additionalProperties":{"type":"string","maxLength":3}}`,
	`{"properties":{"a":{"minLength":2,"pattern":"^[a-z]+$"},"c":{"enum":["x",1,null]}}}`,
	`{"items":{"type":"object","required":["a"]},"minItems":1,"maxItems":4}`,
	`{"prefixItems":[{"type":"string"},{"const":1}],"items":false}`,
	`{"uniqueItems":true}`,
	`{"properties":{"b":{"anyOf":[{"type":"array","minItems":2},{"type":"object","required":["a"]}]}}}`,
	`{"properties":{"a":{"oneOf":[{"type":"string"},{"minLength":1}]}},"not":{"required":["z"]}}`,
	`{"items":{"allOf":[{"type":"integer"},{"minimum":0,"maximum":5,"multipleOf":1}]}}`,
	`{"$defs":{"t":{"type":"object","properties":{"b":{"items":{"$ref":"#/$defs/t"}}}}},"$ref":"#/$defs/t"}`,
	`{"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}`,
	`{"items":{"type":"string"}}`,
	`{"const":{"a":"x"}}`,
}

// randomJSON writes a random document of the shapes the schemas above judge.
func randomJSON(r *rand.Rand, depth int) string {
	pick := r.Intn(10)
	if depth > 3 && pick >= 7 {
		pick = r.Intn(7)
	}
	switch pick {
	case 0:
		return []string{"null", "true", "false"}[r.Intn(3)]
	case 1:
		return []string{"0", "-1", "3", "2.5", "1e2", "-0.0", "5", "7"}[r.Intn(8)]
	case 2, 3:
		words := []string{"", "x", "ab", "abcd", "A1", `a\"b`, `\u00e9t\u00e9`, `caf\u00e9`, "日本", `x\ny`, `\/`}
		return `"` + words[r.Intn(len(words))] + `"`
	case 4, 5, 6:
		if pick == 6 && depth > 0 {
			return randomJSON(r, depth+1)
		}
		names := []string{"a", "b", "c", "z", `a\u0062`}
		var members []string
		for i := r.Intn(4); i > 0; i-- {
			members = append(members, `"`+names[r.Intn(len(names))]+`":`+randomJSON(r, depth+1))
		}
		return "{" + strings.Join(members, ",") + "}"
	default:
		var items []string
		for i := r.Intn(5); i > 0; i-- {
			items = append(items, randomJSON(r, depth+1))
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
}

// slowAnswer is what the host did before the stream check: decode whole,
// then Validate.
func slowAnswer(s *Schema, raw []byte) (*Violation, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return s.Validate(v), nil
}

func hasRepeatedName(raw string) bool {
	var check func(d *json.Decoder) bool
	check = func(d *json.Decoder) bool {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for d.More() {
				k, _ := d.Token()
				if seen[k.(string)] {
					return true
				}
				seen[k.(string)] = true
				if check(d) {
					return true
				}
			}
			d.Token()
		case json.Delim('['):
			for d.More() {
				if check(d) {
					return true
				}
			}
			d.Token()
		}
		return false
	}
	return check(json.NewDecoder(strings.NewReader(raw)))
}

// The stream check answers exactly what decoding whole and validating
// answers, over every schema and thousands of random documents, valid and
// corrupted; and its one-pass verdict agrees with the decoded one (so the
// fast path is taken for every valid document, not only trusted).
func TestValidateJSONMatchesValidate(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	for _, src := range streamSchemas {
		s, err := Compile([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for i := 0; i < 3000; i++ {
			doc := randomJSON(r, 0)
			if i%3 == 0 && len(doc) > 1 {
				// A corrupted document: a byte dropped, doubled or replaced.
				b := []byte(doc)
				k := r.Intn(len(b))
				switch r.Intn(3) {
				case 0:
					b = append(b[:k], b[k+1:]...)
				case 1:
					b = append(b[:k+1], b[k:]...)
				default:
					b[k] = `{}[]",:0\ae`[r.Intn(11)]
				}
				doc = string(b)
			}
			want, wantErr := slowAnswer(s, []byte(doc))
			got, gotErr := s.ValidateJSON([]byte(doc))
			if (wantErr == nil) != (gotErr == nil) || fmt.Sprint(want) != fmt.Sprint(got) {
				t.Fatalf("schema %s, document %s: stream %v %v, decoded %v %v", src, doc, got, gotErr, want, wantErr)
			}
			w := streamWalker{data: []byte(doc)}
			pass := w.document(s.s)
			valid := wantErr == nil && want == nil
			if pass != valid && !(valid && hasRepeatedName(doc)) {
				t.Fatalf("schema %s, document %s: one pass says %v, decoded says %v", src, doc, pass, valid)
			}
		}
	}
}

// Syntax the stream check must refuse exactly as encoding/json does.
func TestValidateJSONRefusesBadSyntax(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"data":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		``, ` `, `{`, `{"data":"x"`, `{"data":"x"}}`, `{"data":"x",}`, `{"data":"a` + "\x01" + `b"}`,
		`{"data":"\x"}`, `{"data":"\u12g4"}`, `{"data":"\u12"}`, `{"data":"x" "y"}`, `{"data":01}`,
		`{"data":-}`, `{"data":1.}`, `{"data":1e}`, `{"data":1e400}`, `{"data":tru}`, `{"data":nul}`,
		`{data:"x"}`, `{"data":"x"} x`, `["a",]`, `{"data":"x"`, `"unterminated`, `[1 2]`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		if _, err := s.ValidateJSON([]byte(doc)); err == nil {
			t.Errorf("%q: accepted, want a syntax error", doc)
		}
		w := streamWalker{data: []byte(doc)}
		if w.document(s.s) {
			t.Errorf("%q: the one pass accepted it", doc)
		}
	}
	for _, doc := range []string{`{"data":"ok \u00e9 \" \\ \/ \b\f\n\r\t"}`, ` {"data" : "x" , "n":-0.5e+3} `, `{"data":"` + "caf\xc3\xa9 \xff" + `"}`} {
		if bad, err := s.ValidateJSON([]byte(doc)); err != nil || bad != nil {
			t.Errorf("%q: refused %v %v", doc, bad, err)
		}
	}
}

// A 4 MiB page of log text, the answer process.read gives, is checked in
// one pass with a handful of allocations, never its size in copies.
func TestValidateJSONLargePageAllocatesLittle(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","required":["chunks","cursor"],"properties":{"cursor":{"type":"string"},` +
		`"chunks":{"type":"array","items":{"type":"object","required":["stream"],"properties":{"stream":{"enum":["stdout","stderr"]},"data":{"type":"string"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(strings.Repeat("GET /assets/app.js 200 1834 bytes in 0.42 ms\n", 100000))
	doc := []byte(`{"cursor":"c1","chunks":[{"stream":"stdout","data":` + string(line) + `}]}`)
	if len(doc) < 4<<20 {
		t.Fatalf("page is %d bytes", len(doc))
	}
	allocs := testing.AllocsPerRun(3, func() {
		if bad, err := s.ValidateJSON(doc); err != nil || bad != nil {
			t.Fatalf("refused: %v %v", bad, err)
		}
	})
	if allocs > 20 {
		t.Fatalf("%v allocations for one page; the one pass should not copy the page", allocs)
	}
	bad := []byte(`{"cursor":"c1","chunks":[{"stream":"tty","data":` + string(line) + `}]}`)
	v, err := s.ValidateJSON(bad)
	if err != nil || v == nil || v.Pointer != "/chunks/0/stream" {
		t.Fatalf("violation %v %v; want one at /chunks/0/stream", v, err)
	}
}

func BenchmarkValidateJSONLogPage(b *testing.B) {
	s, _ := Compile([]byte(`{"type":"object","properties":{"chunks":{"type":"array","items":{"type":"object","properties":{"data":{"type":"string"}}}}}}`))
	line, _ := json.Marshal(strings.Repeat("GET /assets/app.js 200 1834 bytes in 0.42 ms\n", 100000))
	doc := []byte(`{"chunks":[{"data":` + string(line) + `}]}`)
	b.SetBytes(int64(len(doc)))
	for i := 0; i < b.N; i++ {
		if bad, err := s.ValidateJSON(doc); err != nil || bad != nil {
			b.Fatal(bad, err)
		}
	}
}
