package jsonscan

import "testing"

// TestScannerTokens pins what is plain: each fast path relies on these
// answers to hand everything else to a full decoder.
func TestScannerTokens(t *testing.T) {
	cases := []struct {
		doc  string
		kind Kind
		text string // the token's text, "" when it is not plain
	}{
		{`"abc"`, String, "abc"},
		{`"日本"`, String, "日本"},
		{`"a\"b"`, String, ""},
		{"\"a\tb\"", String, ""},
		{"\"\xff\"", String, ""},
		{`"abc`, String, ""},
		{`0`, Integer, "0"},
		{`-12`, Integer, "-12"},
		{`123456789012345`, Integer, "123456789012345"},
		{`1234567890123456`, Integer, ""},
		{`-0`, Integer, ""},
		{`01`, Integer, ""},
		{`1.5`, Integer, ""},
		{`1e3`, Integer, ""},
		{`-`, Integer, ""},
		{`true`, Literal, "true"},
		{`false`, Literal, "false"},
		{`null`, Literal, "null"},
		{`nul`, Literal, ""},
		{`{`, Object, ""},
		{`[`, Array, ""},
		{`x`, Invalid, ""},
		{``, Invalid, ""},
	}
	for _, c := range cases {
		s := New([]byte(c.doc))
		if k := s.Next(); k != c.kind {
			t.Errorf("%q: kind %d, want %d", c.doc, k, c.kind)
			continue
		}
		var text string
		var ok bool
		switch c.kind {
		case String:
			var b []byte
			b, ok = s.String()
			text = string(b)
		case Integer:
			var b []byte
			b, ok = s.Integer()
			text = string(b)
		case Literal:
			text, ok = s.Literal()
		}
		if c.text == "" && ok && c.kind != Object && c.kind != Array && c.kind != Invalid {
			t.Errorf("%q: read as plain %q", c.doc, text)
		}
		if c.text != "" && (!ok || text != c.text || !s.Done()) {
			t.Errorf("%q: read %q ok=%v done=%v, want %q", c.doc, text, ok, s.Done(), c.text)
		}
	}
}

func TestScannerPunctuation(t *testing.T) {
	s := New([]byte(" \t\r\n{ }"))
	s.Space()
	if !s.Consume('{') || s.Consume('}') {
		t.Fatal("consume before space")
	}
	s.Space()
	if !s.Consume('}') || !s.Done() {
		t.Fatal("not done")
	}
}
