package engine

import (
	"testing"

	"github.com/dop251/goja"
)

// fastCorpus holds documents on both sides of the fast path's line.
var fastCorpus = []string{
	`{}`, `[]`, `0`, `-1`, `123456789012345`, `1234567890123456`, `9007199254740993`, `-0`, `01`, `1.5`, `1e3`, `1E-3`,
	`"plain"`, `"é ü 日本"`, `"esc\"aped"`, `"\u00e9"`, `"\ud800"`, "\"bad\xffutf8\"", "\"ctl\x01\"", `true`, `false`, `null`,
	` { "a" : [ 1 , "x" , null , { "b" : false } ] , "c" : {} } `, `{"__proto__":{"x":1},"y":2}`, `{"a":1,"a":2}`,
	`{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":1} x`, `[1 2]`, `tru`, `nul`, `"open`, `{`, `[`, ``, ` `,
	`{"k":[[[[[[[[[[1]]]]]]]]]]}`, `[-5,0,7]`, `{"n":-123456789012345}`,
}

func FuzzFastDecodeAgreesWithTokens(f *testing.F) {
	for _, doc := range fastCorpus {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		rt := goja.New()
		fast, ok := fastDecode(rt, doc)
		if !ok {
			return // the slow path decides
		}
		slow, refusal := decodeTokens(rt, doc, "the value")
		if refusal != nil {
			t.Fatalf("fast path took %q, which the slow path refuses: %v", doc, refusal)
		}
		if a, b := stringify(t, rt, fast), stringify(t, rt, slow); a != b {
			t.Fatalf("%q decodes as %s fast and %s slow", doc, a, b)
		}
	})
}

// stringify is JSON.stringify([v]): key order, strings and numbers exactly.
func stringify(t *testing.T, rt *goja.Runtime, v goja.Value) string {
	t.Helper()
	fn, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
	out, err := fn(goja.Undefined(), rt.NewArray(v))
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestFastDecodeTakesOnlyTheSimple(t *testing.T) {
	rt := goja.New()
	for doc, want := range map[string]bool{
		`{"a":[1,"é",true,null,{}]}`: true, `123456789012345`: true,
		`1234567890123456`: false, `1.5`: false, `-0`: false, `"a\nb"`: false, "\"\xff\"": false, `{"a":1} x`: false,
	} {
		if _, ok := fastDecode(rt, []byte(doc)); ok != want {
			t.Errorf("fastDecode(%q) ok = %v, want %v", doc, ok, want)
		}
	}
}
