package pkg

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/errcode"
)

// readYAML parses src as a whole file and returns its value.
func readYAML(t *testing.T, src string) (any, error) {
	t.Helper()
	n, err := parseStrict("f.yaml", []byte(src), 0)
	if err != nil {
		return nil, err
	}
	return n.toValue(), nil
}

// jsonValue reads the expected value from JSON, in the shared shape.
func jsonValue(t *testing.T, text string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(text))
	if err != nil {
		t.Fatalf("bad expectation %s: %v", text, err)
	}
	return v
}

func TestYAMLParserReadsTheSubset(t *testing.T) {
	cases := []struct {
		name, yaml, want string // want is JSON
	}{
		// Documents.
		{"empty", "", `null`},
		{"only comments", "# a\n\n  # b\n", `null`},
		{"document start", "---\na: 1\n", `{"a":1}`},
		{"document start and end", "--- # c\na: 1\n...\n", `{"a":1}`},
		{"scalar document", "hello\n", `"hello"`},
		{"scalar after document start", "--- hello\n", `"hello"`},
		{"byte order mark", "\ufeffa: 1\n", `{"a":1}`},
		{"CRLF", "a: 1\r\nb:\r\n  - x\r\n", `{"a":1,"b":["x"]}`},
		{"no final line break", "a: b", `{"a":"b"}`},
		{"indented top level", "  a: 1\n  b: 2\n", `{"a":1,"b":2}`},

		// Plain scalars and their meaning.
		{"plain types", "a: 1\nb: -2.5\nc: true\nd: ~\ne: null\nf: text\ng: 1e3\nh: +7\n", `{"a":1,"b":-2.5,"c":true,"d":null,"e":null,"f":"text","g":1e3,"h":7}`},
		{"YAML 1.1 booleans are strings", "a: yes\nb: off\nc: Y\n", `{"a":"yes","b":"off","c":"Y"}`},
		{"keys keep their text", "200: a\n1.5: b\ntrue: c\n0x1F: d\n", `{"200":"a","1.5":"b","true":"c","0x1F":"d"}`},
		{"colons and hashes inside plain", "a: b:c\nu: http://x/y#z\nk: x #c\n", `{"a":"b:c","u":"http://x/y#z","k":"x"}`},
		{"plain over lines", "a: one\n  two\n\n  three\nb: 1\n", `{"a":"one two\nthree","b":1}`},
		{"plain continues with a dash", "a: x\n  - y\n", `{"a":"x - y"}`},
		{"plain in a list over lines", "- a\n  b\n- c\n", `["a b","c"]`},
		{"trailing blanks dropped", "a: x   \nb: y\t\n", `{"a":"x","b":"y"}`},
		{"leading indicators that are text", "a: -x\nb: ?y\nc: :z\nd: ~t\n", `{"a":"-x","b":"?y","c":":z","d":"~t"}`},

		// Quoted scalars.
		{"single quoted", "a: 'it''s # not a comment'\n", `{"a":"it's # not a comment"}`},
		{"double quoted escapes", `a: "\0\a\b\t\n\v\f\r\e\ \"\/\\\N\_\L\P\x41\u00e9\U0001F600\uD83D\uDE00"` + "\n", `{"a":"\u0000\u0007\b\t\n\u000b\f\r\u001b \"/\\\u0085\u00a0\u2028\u2029Aé😀😀"}`},
		{"double quoted tab escape", "a: \"x\\\ty\"\n", `{"a":"x\ty"}`},
		{"quoted folding", "a: \"one\n  two  \n\n  three\"\nb: 'x\n  y'\n", `{"a":"one two\nthree","b":"x y"}`},
		{"escaped line break", "a: \"one\\\n    two\"\n", `{"a":"onetwo"}`},
		{"escaped line break before empty lines", "a: \"one\\\n\n  \n  two\"\n", `{"a":"one\n\ntwo"}`},
		{"quoted key", "\"a b\": 1\n'c': 2\n", `{"a b":1,"c":2}`},
		{"quoted numbers stay strings", "a: \"1\"\nb: '0x1F'\nc: \"null\"\n", `{"a":"1","b":"0x1F","c":"null"}`},
		{"quoted text may hold a colon", "a: \"b: c\"\n", `{"a":"b: c"}`},

		// Block scalars.
		{"literal", "a: |\n  x\n   y\n\n  z\nb: 1\n", `{"a":"x\n y\n\nz\n","b":1}`},
		{"literal strip", "a: |-\n  x\n\n", `{"a":"x"}`},
		{"literal keep", "a: |+\n  x\n\n\nb: 1\n", `{"a":"x\n\n\n","b":1}`},
		{"literal at end without break", "a: |\n  x", `{"a":"x\n"}`},
		{"literal keep at end without break", "a: |+\n  x", `{"a":"x\n"}`},
		{"literal strip at end without break", "a: |-\n  x", `{"a":"x"}`},
		{"trailing line of spaces at end", "a: |\n  x\n   ", `{"a":"x\n \n"}`},
		{"literal holds what looks like YAML", "a: |\n  # not a comment\n  b: c\n  - d\n", `{"a":"# not a comment\nb: c\n- d\n"}`},
		{"indentation indicator", "a: |2\n    x\n  y\n", `{"a":"  x\ny\n"}`},
		{"indicators either way", "a: |-2\n   x\nb: |2-\n   y\n", `{"a":" x","b":" y"}`},
		{"leading empty lines", "a: |\n\n  x\n", `{"a":"\nx\n"}`},
		{"empty literal", "a: |\nb: 1\n", `{"a":"","b":1}`},
		{"comment after header", "a: | # why\n  x\n", `{"a":"x\n"}`},
		{"comment ends it", "a: |\n  x\n# c\nb: 1\n", `{"a":"x\n","b":1}`},
		{"folded", "a: >\n  one\n  two\n\n  three\n    more\n  four\n", `{"a":"one two\nthree\n  more\nfour\n"}`},
		{"folded strip", "a: >-\n  one\n  two\n", `{"a":"one two"}`},
		{"block scalar in a list", "- |\n  x\n- >\n  y\n  z\n", `["x\n","y z\n"]`},
		{"block scalar in a compact mapping", "- a: |\n    x\n  b: 1\n", `[{"a":"x\n","b":1}]`},

		// Block collections.
		{"nested mappings", "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n", `{"a":{"b":{"c":1},"d":2},"e":3}`},
		{"list under a key", "a:\n  - 1\n  - 2\n", `{"a":[1,2]}`},
		{"list at its key's indentation", "a:\n- 1\n- 2\nb: 3\n", `{"a":[1,2],"b":3}`},
		{"compact mapping in a list", "- a: 1\n  b: 2\n- c: 3\n", `[{"a":1,"b":2},{"c":3}]`},
		{"compact list in a list", "- - a\n  - b\n- c\n", `[["a","b"],"c"]`},
		{"empty values", "a:\nb: # c\nc:\n-\n", `{"a":null,"b":null,"c":[null]}`},
		{"comments between entries", "a: 1 # one\n# between\n  # indented\nb: 2\n", `{"a":1,"b":2}`},
		{"blank lines between entries", "a: 1\n\n\nb: 2\n", `{"a":1,"b":2}`},
		{"tab after a colon", "a:\t1\n", `{"a":1}`},
		{"tab after a dash", "-\tx\n", `["x"]`},

		// Flow collections.
		{"flow", "a: {b: [1, {c: d}], e: []}\n", `{"a":{"b":[1,{"c":"d"}],"e":[]}}`},
		{"flow over lines", "a: {\n  b: 1,\n  c: [x,\n    y],\n}\n", `{"a":{"b":1,"c":["x","y"]}}`},
		{"flow closing at column one", "a: [1,\n2]\n", `{"a":[1,2]}`},
		{"trailing commas", "a: [1, 2,]\nb: {c: 1,}\n", `{"a":[1,2],"b":{"c":1}}`},
		{"flow null values", "a: {b: , c, d: ~}\n", `{"a":{"b":null,"c":null,"d":null}}`},
		{"one-pair mappings in a flow list", "a: [b: 1, c]\n", `{"a":[{"b":1},"c"]}`},
		{"flow key with adjacent colon", "a: {b:1, \"c\":2}\n", `{"a":{"b":1,"c":2}}`},
		{"colon inside a flow list item", "a: [b:c, http://x]\n", `{"a":["b:c","http://x"]}`},
		{"flow key holding a URL", "{http://x: 1}\n", `{"http://x":1}`},
		{"flow list in a flow mapping splits at a colon", "{a: [b:c, d]}\n", `{"a":[{"b":"c"},"d"]}`},
		{"flow plain over lines", "a: [one\n  two]\n", `{"a":["one two"]}`},
		{"flow comments", "a: [1, # one\n  2] # two\n", `{"a":[1,2]}`},
		{"flow document", "{a: 1}\n", `{"a":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readYAML(t, c.yaml)
			if err != nil {
				t.Fatalf("%v\n%s", err, c.yaml)
			}
			if want := jsonValue(t, c.want); !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				t.Fatalf("read %s, want %s\n%s", g, c.want, c.yaml)
			}
		})
	}
}

func TestYAMLParserPositions(t *testing.T) {
	src := "a: 1\nb:\n  - x\n  - {c: 'q', d: }\n  -\ne: |\n  t\nf: [é, g]\n"
	n, err := parseStrict("f.yaml", []byte(src), 2)
	if err != nil {
		t.Fatal(err)
	}
	at := func(n *node) [2]int { return [2]int{n.pos.Line, n.pos.Column} }
	b := n.entries[1].value
	flow := b.items[1]
	checks := []struct {
		what      string
		got, want [2]int
	}{
		{"root (its first key)", at(n), [2]int{3, 1}},
		{"key b", [2]int{n.entries[1].keyPos.Line, n.entries[1].keyPos.Column}, [2]int{4, 1}},
		{"scalar", at(n.entries[0].value), [2]int{3, 4}},
		{"list (its first dash)", at(b), [2]int{5, 3}},
		{"flow mapping (its brace)", at(flow), [2]int{6, 5}},
		{"quoted scalar (its quote)", at(flow.entries[0].value), [2]int{6, 9}},
		{"empty flow value (after the colon)", at(flow.entries[1].value), [2]int{6, 16}},
		{"empty item (after the dash)", at(b.items[2]), [2]int{7, 4}},
		{"block scalar (its header)", at(n.entries[2].value), [2]int{8, 4}},
		{"after a multi-byte character (columns count characters)", at(n.entries[3].value.items[1]), [2]int{10, 8}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s at %v, want %v", c.what, c.got, c.want)
		}
	}
}

func TestYAMLParserRefusals(t *testing.T) {
	cases := []struct {
		name, yaml string
		code       errcode.Code
		line, col  int
	}{
		// The subset's own refusals, at what they refuse.
		{"anchor on a value", "a: &x 1\n", errcode.RunxYAMLAnchorRefused, 1, 4},
		{"anchor on a mapping", "a: &x\n  b: 1\n", errcode.RunxYAMLAnchorRefused, 1, 4},
		{"anchor on a key", "&x a: 1\n", errcode.RunxYAMLAnchorRefused, 1, 1},
		{"anchor in flow", "a: [&x 1]\n", errcode.RunxYAMLAnchorRefused, 1, 5},
		{"alias", "a: *x\n", errcode.RunxYAMLAliasRefused, 1, 4},
		{"alias in flow", "a: {b: *x}\n", errcode.RunxYAMLAliasRefused, 1, 8},
		{"alias as key", "*x : 1\n", errcode.RunxYAMLAliasRefused, 1, 1},
		{"tag", "a: !!str 1\n", errcode.RunxYAMLTagRefused, 1, 4},
		{"verbatim tag", "a: !<tag:x> 1\n", errcode.RunxYAMLTagRefused, 1, 4},
		{"tag on a list", "a: !seq\n  - 1\n", errcode.RunxYAMLTagRefused, 1, 4},
		{"merge key", "a: 1\n<<: {b: 2}\n", errcode.RunxYAMLMergeKeyRefused, 2, 1},
		{"merge key in flow", "a: {<<: {b: 2}}\n", errcode.RunxYAMLMergeKeyRefused, 1, 5},
		{"duplicate key", "a: 1\nb: 2\na: 3\n", errcode.RunxYAMLDuplicateKey, 3, 1},
		{"duplicate key quoted and plain", "a: 1\n\"a\": 2\n", errcode.RunxYAMLDuplicateKey, 2, 1},
		{"duplicate key in flow", "x: {a: 1, a: 2}\n", errcode.RunxYAMLDuplicateKey, 1, 11},
		{"duplicate key in a large mapping", largeMapping(40) + "k7: 1\n", errcode.RunxYAMLDuplicateKey, 41, 1},
		{"second document", "a: 1\n---\nb: 2\n", errcode.RunxYAMLMultipleDocuments, 2, 1},
		{"document after an end marker", "a: 1\n...\nb: 2\n", errcode.RunxYAMLMultipleDocuments, 3, 1},
		{"empty second document", "a: 1\n---\n", errcode.RunxYAMLMultipleDocuments, 2, 1},
		{"directive", "%YAML 1.2\n---\na: 1\n", errcode.RunxYAMLInvalid, 1, 1},
		{"explicit key", "? a\n: 1\n", errcode.RunxYAMLInvalid, 1, 1},
		{"explicit key in flow", "a: {? b: 1}\n", errcode.RunxYAMLInvalid, 1, 5},
		{"flow key", "[a]: 1\n", errcode.RunxYAMLInvalid, 1, 4},
		{"flow key in flow", "a: {[b]: 1}\n", errcode.RunxYAMLInvalid, 1, 8},
		{"null key", "~: 1\n", errcode.RunxYAMLInvalid, 1, 1},
		{"infinite key", ".inf: 1\n", errcode.RunxYAMLInvalid, 1, 1},
		// Values JSON cannot hold, or that YAML versions read differently.
		{"infinity", "a: -.inf\n", errcode.RunxYAMLInvalid, 1, 4},
		{"not a number", "a: [.nan]\n", errcode.RunxYAMLInvalid, 1, 5},
		{"octal", "a: 0o17\n", errcode.RunxYAMLInvalid, 1, 4},
		{"binary", "a: 0b101\n", errcode.RunxYAMLInvalid, 1, 4},
		{"underscored integer", "a: 1_000\n", errcode.RunxYAMLInvalid, 1, 4},
		{"unsafe integer", "a: -9007199254740992\n", errcode.RunxYAMLInvalid, 1, 4},
		{"float out of range", "a: 1e999\n", errcode.RunxYAMLInvalid, 1, 4},
		// Syntax.
		{"unclosed flow list", "a: [1, 2\n", errcode.RunxYAMLInvalid, 1, 4},
		{"unclosed flow mapping", "a: {b: 1\n\n", errcode.RunxYAMLInvalid, 1, 4},
		{"flow entry without a comma", "a: [x\nb: y]\n", errcode.RunxYAMLInvalid, 2, 1},
		{"empty flow entry", "a: [1, , 2]\n", errcode.RunxYAMLInvalid, 1, 8},
		{"unclosed double quote", "a: \"abc\nb: 1\n", errcode.RunxYAMLInvalid, 1, 4},
		{"unclosed single quote", "a: 'abc\n", errcode.RunxYAMLInvalid, 1, 4},
		{"document marker in a quote", "a: \"x\n---\ny\"\n", errcode.RunxYAMLInvalid, 2, 1},
		{"document marker in flow", "a: [x,\n---\n]\n", errcode.RunxYAMLInvalid, 1, 4},
		{"unknown escape", "a: \"\\q\"\n", errcode.RunxYAMLInvalid, 1, 6},
		{"short hex escape", "a: \"\\x4\"\n", errcode.RunxYAMLInvalid, 1, 4},
		{"surrogate escape", "a: \"\\uD800\"\n", errcode.RunxYAMLInvalid, 1, 5},
		{"tab indentation", "a:\n\tb: 1\n", errcode.RunxYAMLInvalid, 2, 1},
		{"deeper line after a value", "a: \"x\"\n  b: 1\n", errcode.RunxYAMLInvalid, 2, 3},
		{"plain value runs into a key", "a: 1\n  b: 2\n", errcode.RunxYAMLInvalid, 1, 4},
		{"mapping on its key's line", "a: b: c\n", errcode.RunxYAMLInvalid, 1, 4},
		{"list on its key's line", "a: - b\n", errcode.RunxYAMLInvalid, 1, 4},
		{"text after a quoted value", "a: \"b\" c\n", errcode.RunxYAMLInvalid, 1, 8},
		{"text after a flow value", "a: [b] c\n", errcode.RunxYAMLInvalid, 1, 8},
		{"key without a colon", "a: 1\nb\n", errcode.RunxYAMLInvalid, 2, 1},
		{"first key over two lines", "\"a\n b\": 1\n", errcode.RunxYAMLInvalid, 1, 1},
		{"key over two lines", "x: 1\n'a\n b': 1\n", errcode.RunxYAMLInvalid, 2, 1},
		{"item where a key belongs", "a: 1\n- b\n", errcode.RunxYAMLInvalid, 2, 1},
		{"deeper line in a list", "- 'a'\n - b\n", errcode.RunxYAMLInvalid, 2, 2},
		{"block scalar header", "a: |x\n  y\n", errcode.RunxYAMLInvalid, 1, 4},
		{"reserved indicator", "a: @b\n", errcode.RunxYAMLInvalid, 1, 4},
		{"control character", "a: b\x01c\n", errcode.RunxYAMLInvalid, 1, 5},
		{"delete character", "a:\n  - \x7f\n", errcode.RunxYAMLInvalid, 2, 5},
		{"content after the document", "- a\nb: 1\n", errcode.RunxYAMLInvalid, 2, 1},
		{"empty item then a key", "a:\n- 1\n-\nb: 3\n", errcode.RunxYAMLInvalid, 4, 1},
		{"value at its key's indentation", "a:\nb\n", errcode.RunxYAMLInvalid, 2, 1},
		{"value left of its key's indentation", "x:\n  a:\n b: 1\n", errcode.RunxYAMLInvalid, 3, 2},
		{"nesting too deep", strings.Repeat("[", maxYAMLDepth+2) + strings.Repeat("]", maxYAMLDepth+2) + "\n", errcode.RunxYAMLInvalid, 1, maxYAMLDepth + 2},
		{"block nesting too deep", deepBlock(maxYAMLDepth + 2), errcode.RunxYAMLInvalid, maxYAMLDepth + 2, maxYAMLDepth + 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readYAML(t, c.yaml)
			wantRefusal(t, err, c.code, c.line, c.col)
		})
	}
}

func largeMapping(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d: 0\n", i)
	}
	return b.String()
}

// deepBlock nests block mappings n deep, one column further each level.
func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "v\n")
	return b.String()
}

// A subset refusal is held until the parse ends: a syntax error anywhere
// still wins, and among refusals a directive comes first, then a second
// document, then the first refusal in the file.
func TestYAMLParserRefusalOrder(t *testing.T) {
	cases := []struct {
		name, yaml string
		code       errcode.Code
		line, col  int
	}{
		{"syntax error after an anchor", "a: &x 1\nb: [\n", errcode.RunxYAMLInvalid, 2, 4},
		{"first refusal in the file", "a: *x\nb: &y 1\n", errcode.RunxYAMLAliasRefused, 1, 4},
		{"second document before an anchor", "a: &x 1\n---\nb: 1\n", errcode.RunxYAMLMultipleDocuments, 2, 1},
		{"directive before a second document", "a: 1\n...\n%TAG ! x\n---\nb: 1\n", errcode.RunxYAMLInvalid, 3, 1},
		{"duplicate key after a tag", "a: !t 1\na: 2\n", errcode.RunxYAMLTagRefused, 1, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readYAML(t, c.yaml)
			wantRefusal(t, err, c.code, c.line, c.col)
		})
	}
}

func TestYAMLParserLineOffset(t *testing.T) {
	_, err := parseStrict("SKILL.md", []byte("name: x\ndescription: &d y\n"), 1)
	wantRefusal(t, err, errcode.RunxYAMLAnchorRefused, 3, 14)
}

func TestYAMLPeekIgnoresTheSubset(t *testing.T) {
	doc, err := parseYAML("run.yaml", []byte("{minimum_runx: 9.0.0, x: *a, x: 1}\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	v, pos, ok := doc.peekString("minimum_runx")
	if !ok || v != "9.0.0" || pos != (Position{Line: 1, Column: 16}) {
		t.Fatalf("peek = %q %v %v", v, pos, ok)
	}
	if _, err := doc.body(); CodeOf(err) != errcode.RunxYAMLAliasRefused {
		t.Fatalf("body: %v", err)
	}
	doc, err = parseYAML("run.yaml", []byte("{minimum_runx: 1, x: *a}\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, ok := doc.peekString("minimum_runx"); !ok {
		t.Fatal("not found")
	} else if _, err := semver.Parse(v); err == nil {
		t.Fatalf("a value that is not a string peeks as %q, which reads as a version", v)
	}
}
