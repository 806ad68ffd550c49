package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
)

// ErrNotOneJSONValue is a document that is not exactly one well-formed JSON
// value.
var ErrNotOneJSONValue = errors.New("not exactly one well-formed JSON value")

// DuplicateKey walks raw, which must be exactly one well-formed JSON value,
// and returns the path (a.b[2].c) of the first key repeated within one
// object, at any depth, or "" when none is. encoding/json keeps the last
// of two equal keys, so a document read with it alone could mean one thing
// to runx and another to whoever wrote or checked it; a host document is
// refused instead. A malformed document returns ErrNotOneJSONValue.
func DuplicateKey(raw []byte) (string, error) {
	type frame struct {
		path      string
		object    bool
		expectKey bool
		key       string
		index     int
		keys      map[string]struct{}
	}
	child := func(f *frame) string {
		if f.object {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		return f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	done := func(f *frame) {
		if f.object {
			f.expectKey = true
		} else {
			f.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var stack []*frame
	seen := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) != 0 || !seen {
				return "", ErrNotOneJSONValue
			}
			return "", nil
		}
		if err != nil {
			return "", ErrNotOneJSONValue
		}
		if seen && len(stack) == 0 {
			return "", ErrNotOneJSONValue // a second value after the first
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				done(stack[len(stack)-1])
			} else {
				seen = true
			}
			continue
		}
		if top != nil && top.object && top.expectKey {
			key := tok.(string) // the decoder yields only strings as keys
			if _, dup := top.keys[key]; dup {
				top.key = key
				return child(top), nil
			}
			top.keys[key] = struct{}{}
			top.key, top.expectKey = key, false
			continue
		}
		path := ""
		if top != nil {
			path = child(top)
		}
		if d, ok := tok.(json.Delim); ok {
			f := &frame{path: path, object: d == '{', expectKey: d == '{'}
			if f.object {
				f.keys = map[string]struct{}{}
			}
			stack = append(stack, f)
			continue
		}
		if top != nil {
			done(top)
		} else {
			seen = true
		}
	}
}
