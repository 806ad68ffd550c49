package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"
	"unicode/utf8"
)

func TestDuplicateKey(t *testing.T) {
	cases := []struct{ doc, dup string }{
		{`{}`, ""},
		{`{"a":1,"b":{"a":1}}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":{"b":[1,{"c":1,"c":2}]}}`, "a.b[1].c"},
		{`[{"x":1},{"x":1,"y":"}\"","x":3}]`, "[1].x"},
		{`{"a":1,"\u0061":2}`, "a"},
		{` "s" `, ""},
	}
	for _, c := range cases {
		got, err := DuplicateKey([]byte(c.doc))
		if err != nil || got != c.dup {
			t.Errorf("%s: got %q %v, want %q", c.doc, got, err, c.dup)
		}
	}
	for _, bad := range []string{``, `{`, `{} {}`, `{"a":}`, `{"a":1,}`, "\"\xff\""} {
		if _, err := DuplicateKey([]byte(bad)); !errors.Is(err, ErrNotOneJSONValue) {
			t.Errorf("%q: got %v, want ErrNotOneJSONValue", bad, err)
		}
	}
}

// FuzzDuplicateKey holds the in-place walk to a reference that reads
// tokens with encoding/json's Decoder.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[{"x":[{}],"x":1}]`, `{"a":"\"}","b":{"c":1,"d":[1,2,{"c":3}]}}`, `{"\u00e9":1,"é":2}`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := DuplicateKey(raw)
		want, werr := referenceDuplicateKey(raw)
		if (err != nil) != (werr != nil) || got != want {
			t.Fatalf("%q: got %q %v, reference %q %v", raw, got, err, want, werr)
		}
	})
}

func referenceDuplicateKey(raw []byte) (string, error) {
	if !utf8.Valid(raw) || !json.Valid(raw) {
		return "", ErrNotOneJSONValue
	}
	type frame struct {
		path   string
		object bool
		key    bool
		index  int
		seen   map[string]bool
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []*frame
	child := func(f *frame, k string) string {
		if !f.object {
			return f.path + "[" + strconv.Itoa(f.index) + "]"
		}
		if f.path == "" {
			return k
		}
		return f.path + "." + k
	}
	var lastKey []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack, lastKey = stack[:len(stack)-1], lastKey[:len(lastKey)-1]
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				if p.object {
					p.key = true
				} else {
					p.index++
				}
			}
			continue
		}
		if top != nil && top.object && top.key {
			k := tok.(string)
			if top.seen[k] {
				return child(top, k), nil
			}
			top.seen[k], top.key = true, false
			lastKey[len(lastKey)-1] = k
			continue
		}
		path := ""
		if top != nil {
			path = child(top, lastKey[len(lastKey)-1])
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{path: path, object: d == '{', key: d == '{', seen: map[string]bool{}})
			lastKey = append(lastKey, "")
			continue
		}
		if top != nil {
			if top.object {
				top.key = true
			} else {
				top.index++
			}
		}
	}
}
