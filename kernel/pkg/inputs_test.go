package pkg

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

const inputsProfile = `minimum_runx: 0.1.0
methods:
  m:
    inputs:
      s: { type: string }
      i: { type: integer }
      n: { type: number }
      b: { type: boolean }
      o: { type: object }
      a: { type: array }
      j: { type: json }
      d: { type: integer, default: 3 }
      do: { type: object, default: { k: [1] } }
      r: { type: string, required: true }
      ns: { type: string, schema: { type: [string, "null"] } }
      e: { type: string, schema: { enum: [red, green] } }
    steps: [{ id: a, tool: fs.read }]
`

func inputsMethod(t *testing.T) *Method {
	t.Helper()
	p, _, err := loadProfile(t, inputsProfile)
	if err != nil {
		t.Fatal(err)
	}
	return p.Methods[0]
}

// base is what every successful case binds besides its own inputs.
func base(extra map[string]any) map[string]any {
	out := map[string]any{"r": "x", "d": int64(3), "do": map[string]any{"k": []any{int64(1)}}}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func TestBindInputs(t *testing.T) {
	m := inputsMethod(t)
	pairs := func(p ...string) InputSource { return InputSource{Pairs: append([]string{"r=x"}, p...)} }
	jsonPairs := func(p ...string) InputSource { return InputSource{Pairs: []string{"r=x"}, JSONPairs: p} }
	doc := func(s string) InputSource { return InputSource{Document: []byte(s), HasDocument: true} }
	cases := []struct {
		name string
		src  InputSource
		want map[string]any
		code errcode.Code
	}{
		{"string as written", pairs("s=42"), base(map[string]any{"s": "42"}), ""},
		{"string keeps later equals signs", pairs("s=a=b"), base(map[string]any{"s": "a=b"}), ""},
		{"empty string", pairs("s="), base(map[string]any{"s": ""}), ""},
		{"integer", pairs("i=42"), base(map[string]any{"i": int64(42)}), ""},
		{"integral float is an integer", pairs("i=2.0"), base(map[string]any{"i": int64(2)}), ""},
		{"largest safe integer", pairs("i=9007199254740991"), base(map[string]any{"i": int64(9007199254740991)}), ""},
		{"smallest safe integer", pairs("i=-9007199254740991"), base(map[string]any{"i": int64(-9007199254740991)}), ""},
		{"number from an integer", pairs("n=3"), base(map[string]any{"n": 3.0}), ""},
		{"number", pairs("n=2.5"), base(map[string]any{"n": 2.5}), ""},
		{"boolean", pairs("b=true"), base(map[string]any{"b": true}), ""},
		{"object", pairs(`o={"k":{"z":[1,2.5]}}`), base(map[string]any{"o": map[string]any{"k": map[string]any{"z": []any{int64(1), 2.5}}}}), ""},
		{"array", pairs(`a=[1,"x"]`), base(map[string]any{"a": []any{int64(1), "x"}}), ""},
		{"json string", pairs(`j="x"`), base(map[string]any{"j": "x"}), ""},
		{"json null is a value", pairs("j=null"), base(map[string]any{"j": nil}), ""},
		{"schema admitting null", jsonPairs("ns=null"), base(map[string]any{"ns": nil}), ""},
		{"null is absent for a string", jsonPairs("s=null"), base(nil), ""},
		{"null takes the default", jsonPairs("d=null"), base(nil), ""},
		{"default overridden", pairs("d=7"), base(map[string]any{"d": int64(7)}), ""},
		{"input-json", jsonPairs(`s="x"`, `i=5`), base(map[string]any{"s": "x", "i": int64(5)}), ""},
		{"schema enum", pairs("e=red"), base(map[string]any{"e": "red"}), ""},
		{"document", doc(`{"r":"x","i":5,"j":null}`), base(map[string]any{"i": int64(5), "j": nil}), ""},
		{"document with whitespace around", doc(" \n{\"r\":\"x\"}\n "), base(nil), ""},

		{"integer not JSON", pairs("i=abc"), nil, errcode.InputTypeInvalid},
		{"integer fraction", pairs("i=1.5"), nil, errcode.InputTypeInvalid},
		{"unsafe integer", pairs("i=9007199254740992"), nil, errcode.InputTypeInvalid},
		{"unsafe negative integer", pairs("i=-9007199254740992"), nil, errcode.InputTypeInvalid},
		{"huge float as integer", pairs("i=1e300"), nil, errcode.InputTypeInvalid},
		{"unsafe integer nested in json", pairs(`j={"id":12345678901234567890}`), nil, errcode.InputTypeInvalid},
		{"boolean spelled yes", pairs("b=yes"), nil, errcode.InputTypeInvalid},
		{"object given an array", pairs("o=[1]"), nil, errcode.InputTypeInvalid},
		{"trailing JSON", pairs("i=1 2"), nil, errcode.InputTypeInvalid},
		{"input-json not coerced", jsonPairs("s=42"), nil, errcode.InputTypeInvalid},
		{"input-json invalid", jsonPairs("o={bad"), nil, errcode.InputTypeInvalid},
		{"schema enum refused", pairs("e=blue"), nil, errcode.InputTypeInvalid},
		{"required missing", InputSource{}, nil, errcode.InputMissing},
		{"required null", InputSource{JSONPairs: []string{"r=null"}}, nil, errcode.InputMissing},
		{"unknown -i", pairs("zz=1"), nil, errcode.InputUnknown},
		{"unknown --input-json", jsonPairs("zz=1"), nil, errcode.InputUnknown},
		{"pair without equals", pairs("s"), nil, errcode.InputPairInvalid},
		{"pair without name", pairs("=x"), nil, errcode.InputPairInvalid},
		{"given twice", pairs("s=a", "s=b"), nil, errcode.InputDuplicate},
		{"given by -i and --input-json", InputSource{Pairs: []string{"r=x", "s=a"}, JSONPairs: []string{`s="b"`}}, nil, errcode.InputDuplicate},
		{"document with -i", InputSource{Pairs: []string{"r=x"}, Document: []byte(`{}`), HasDocument: true}, nil, errcode.InputsExclusive},
		{"document with --input-json", InputSource{JSONPairs: []string{`r="x"`}, Document: []byte(`{}`), HasDocument: true}, nil, errcode.InputsExclusive},
		{"document bytes without the flag", InputSource{Pairs: []string{"r=x"}, Document: []byte(`{}`)}, nil, errcode.InputsExclusive},
		{"empty document", doc(""), nil, errcode.InputsDocumentInvalid},
		{"array document", doc(`[{"r":"x"}]`), nil, errcode.InputsDocumentInvalid},
		{"two documents", doc(`{"r":"x"} {}`), nil, errcode.InputsDocumentInvalid},
		{"trailing garbage", doc(`{"r":"x"} x`), nil, errcode.InputsDocumentInvalid},
		{"unclosed document", doc(`{"r":"x"`), nil, errcode.InputsDocumentInvalid},
		{"key twice", doc(`{"r":"x","r":"y"}`), nil, errcode.InputsDocumentInvalid},
		{"not UTF-8", doc("{\"r\":\"\xff\"}"), nil, errcode.InputsDocumentInvalid},
		{"document missing required", doc(`{"i":1}`), nil, errcode.InputMissing},
		{"document big integer", doc(`{"r":"x","o":{"id":90071992547409930}}`), nil, errcode.InputTypeInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := BindInputs(m, c.src)
			if c.code != "" {
				wantRefusal(t, err, c.code, 0, 0)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("bound %#v\nwant  %#v", got, c.want)
			}
		})
	}
}

func TestBindInputsNeverEchoesTheDocument(t *testing.T) {
	m := inputsMethod(t)
	const secret = "hunter2-secret"
	docs := []string{
		`{"` + secret + `": 1}`,
		`{"r": ` + secret + `}`,
		`{"r": "x", "e": "` + secret + `"}`,
		`{"r": "x", "i": "` + secret + `"}`,
		`{"r": "x"} "` + secret + `"`,
	}
	for _, d := range docs {
		_, err := BindInputs(m, InputSource{Document: []byte(d), HasDocument: true})
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("refusal %v echoes the document", err)
		}
	}
	_, err := BindInputs(m, InputSource{Pairs: []string{"r=x", "e=" + secret}})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("refusal %v echoes the value", err)
	}
}

func TestDefaultsAreCopied(t *testing.T) {
	m := inputsMethod(t)
	first, err := BindInputs(m, InputSource{Pairs: []string{"r=x"}})
	if err != nil {
		t.Fatal(err)
	}
	first["do"].(map[string]any)["k"].([]any)[0] = "changed"
	second, err := BindInputs(m, InputSource{Pairs: []string{"r=x"}})
	if err != nil {
		t.Fatal(err)
	}
	if second["do"].(map[string]any)["k"].([]any)[0] != int64(1) {
		t.Error("a run changed the method's default for the next run")
	}
}

func TestBindInputsHandBuiltSpec(t *testing.T) {
	m := &Method{Name: "h", Inputs: []*InputSpec{{Name: "x", Type: TypeString, Schema: map[string]any{"maxLength": int64(2)}}}}
	if _, err := BindInputs(m, InputSource{Pairs: []string{"x=ab"}}); err != nil {
		t.Fatal(err)
	}
	_, err := BindInputs(m, InputSource{Pairs: []string{"x=abc"}})
	wantRefusal(t, err, errcode.InputTypeInvalid, 0, 0)
}

func TestInputsDocumentCap(t *testing.T) {
	m := &Method{Name: "big", Inputs: []*InputSpec{{Name: "text", Type: TypeString}}}
	// Exactly 64 MiB is accepted.
	prefix, suffix := []byte(`{"text":"`), []byte(`"}`)
	doc := make([]byte, 0, MaxInputsDocumentSize)
	doc = append(doc, prefix...)
	doc = append(doc, bytes.Repeat([]byte("a"), MaxInputsDocumentSize-len(prefix)-len(suffix))...)
	doc = append(doc, suffix...)
	if len(doc) != MaxInputsDocumentSize {
		t.Fatalf("generated %d bytes", len(doc))
	}
	got, err := BindInputs(m, InputSource{Document: doc, HasDocument: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got["text"].(string)); n != MaxInputsDocumentSize-len(prefix)-len(suffix) {
		t.Fatalf("bound %d bytes", n)
	}
	// One byte more is refused, whether given whole or read from a stream.
	over := append(doc[:len(doc)-len(suffix)], 'a', '"', '}')
	_, err = BindInputs(m, InputSource{Document: over, HasDocument: true})
	wantRefusal(t, err, errcode.InputsDocumentTooLarge, 0, 0)
	_, err = ReadInputsDocument(bytes.NewReader(over))
	wantRefusal(t, err, errcode.InputsDocumentTooLarge, 0, 0)
	read, err := ReadInputsDocument(strings.NewReader(`{"text":"a"}`))
	if err != nil || string(read) != `{"text":"a"}` {
		t.Fatalf("ReadInputsDocument = %q, %v", read, err)
	}
}

func TestAcceptsNull(t *testing.T) {
	cases := []struct {
		spec InputSpec
		want bool
	}{
		{InputSpec{Type: TypeJSON}, true},
		{InputSpec{Type: TypeString}, false},
		{InputSpec{Type: TypeString, Schema: map[string]any{"type": []any{"string", "null"}}}, true},
		{InputSpec{Type: TypeObject, Schema: map[string]any{"type": "object"}}, false},
	}
	for _, c := range cases {
		if got := c.spec.AcceptsNull(); got != c.want {
			t.Errorf("%+v AcceptsNull = %v", c.spec, got)
		}
	}
}
