package pkg

import (
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// profileWith returns a one-step run.yaml whose step inputs (from line 8,
// indented 10 columns) are body.
func profileWith(body string) string {
	return "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        tool: fs.read\n        inputs:\n" + body
}

func TestStrictSubsetRefusals(t *testing.T) {
	cases := []struct {
		name, yaml string
		code       errcode.Code
		line, col  int
	}{
		{"anchor", profileWith("          x: &v 1\n"), errcode.RunxYAMLAnchorRefused, 8, 14},
		{"alias", profileWith("          x: 1\n          y: *v\n"), errcode.RunxYAMLAliasRefused, 9, 14},
		{"merge key", profileWith("          <<: {a: 1}\n"), errcode.RunxYAMLMergeKeyRefused, 8, 11},
		{"core tag", profileWith("          x: !!str 4\n"), errcode.RunxYAMLTagRefused, 8, 14},
		{"custom tag", profileWith("          x: !custom 4\n"), errcode.RunxYAMLTagRefused, 8, 14},
		{"tag on document", "!custom\n" + profileWith("          x: 1\n"), errcode.RunxYAMLTagRefused, 1, 1},
		{"multiple documents", profileWith("          x: 1\n---\nminimum_runx: 0.1.0\n"), errcode.RunxYAMLMultipleDocuments, 9, 1},
		{"directive", "%YAML 1.2\n---\n" + profileWith("          x: 1\n"), errcode.RunxYAMLInvalid, 1, 1},
		{"duplicate key", profileWith("          x: 1\n          x: 2\n"), errcode.RunxYAMLDuplicateKey, 9, 11},
		{"duplicate top-level key", "minimum_runx: 0.1.0\nminimum_runx: 0.1.0\n", errcode.RunxYAMLDuplicateKey, 2, 1},
		{"syntax", profileWith("          x: [1, 2\n"), errcode.RunxYAMLInvalid, 8, 14},
		{"bad indentation", "minimum_runx: 0.1.0\nmethods: 1\n  m: 2\n", errcode.RunxYAMLInvalid, 2, 10},
		{"hex integer", profileWith("          x: 0x1F\n"), errcode.RunxYAMLInvalid, 8, 14},
		{"octal-looking integer", profileWith("          x: 0777\n"), errcode.RunxYAMLInvalid, 8, 14},
		{"unsafe integer", profileWith("          x: 9007199254740992\n"), errcode.RunxYAMLInvalid, 8, 14},
		{"integer beyond int64", profileWith("          x: 99999999999999999999\n"), errcode.RunxYAMLInvalid, 8, 14},
		{"infinity", profileWith("          x: .inf\n"), errcode.RunxYAMLInvalid, 8, 14},
		{"explicit key", profileWith("          ? x\n          : 1\n"), errcode.RunxYAMLInvalid, 8, 11},
		{"invalid utf-8", profileWith("          x: \xff\n"), errcode.RunxYAMLInvalid, 0, 0},
		{"not a mapping", "- 1\n", errcode.RunxYAMLInvalid, 1, 1},
		// Unknown fields are refused at every level.
		{"unknown top-level field", "minimum_runx: 0.1.0\nmethod: {}\n", errcode.RunxYAMLUnknownField, 2, 1},
		{"unknown method field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    step: []\n", errcode.RunxYAMLUnknownField, 4, 5},
		{"unknown step field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        tool: fs.read\n        input: {}\n", errcode.RunxYAMLUnknownField, 7, 9},
		{"unknown input spec field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs:\n      n: { type: string, requried: true }\n    steps: [{id: a, tool: fs.read}]\n", errcode.RunxYAMLUnknownField, 5, 26},
		{"unknown output field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    outputs: { o: { kind: string } }\n    steps: [{id: a, tool: fs.read}]\n", errcode.RunxYAMLUnknownField, 4, 21},
		{"unknown tool field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        tool: { module: compose.mjs, entry: main }\n", errcode.RunxYAMLUnknownField, 6, 38},
		{"unknown calls field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        agent: { task: t, calls: { tool: [x] } }\n", errcode.RunxYAMLUnknownField, 6, 36},
		{"unknown retry field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        tool: fs.read\n        retry: { attempts: 2 }\n", errcode.RunxYAMLUnknownField, 7, 18},
		{"unknown question field", "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        ask: { questions: [{ id: q, prompt: p, hint: h }] }\n", errcode.RunxYAMLUnknownField, 6, 48},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := loadProfile(t, c.yaml)
			e := wantRefusal(t, err, c.code, c.line, c.col)
			if c.line > 0 && e.File == "" {
				t.Errorf("refusal names no file: %v", e)
			}
		})
	}
}

func TestStrictScalarsKeepJSONMeaning(t *testing.T) {
	p, _, err := loadProfile(t, profileWith(`          int: 42
          neg: -7
          plus: +5
          float: 2.5
          exp: 1e3
          yes: yes
          on: on
          quoted: "42"
          single: '0x1F'
          null1: null
          null2: ~
          empty:
          bool: true
          date: 2001-12-14
          version: 0.1.0
          block: |
            line one
            line two
          200: ok
          list: [1, "two", 3.0]
          dollar: $$5
`))
	if err != nil {
		t.Fatal(err)
	}
	in := p.Methods[0].Steps[0].Inputs
	want := map[string]any{
		"int": int64(42), "neg": int64(-7), "plus": int64(5), "float": 2.5, "exp": 1000.0,
		"yes": "yes", "on": "on", "quoted": "42", "single": "0x1F", "null1": nil, "null2": nil, "empty": nil,
		"bool": true, "date": "2001-12-14", "version": "0.1.0", "block": "line one\nline two\n", "200": "ok", "dollar": "$$5",
	}
	for k, v := range want {
		got, ok := in[k]
		if !ok || got != v {
			t.Errorf("%s = %#v (present %v), want %#v", k, got, ok, v)
		}
	}
	list := in["list"].([]any)
	if list[0] != int64(1) || list[1] != "two" || list[2] != 3.0 {
		t.Errorf("list = %#v", list)
	}
}
