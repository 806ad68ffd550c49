package authority

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// maxDocumentBytes bounds an authority document. It is a control document a
// host writes by hand or by template; 1 MiB is far beyond any real one and
// keeps a mistaken file from costing a full parse.
const maxDocumentBytes = 1 << 20

// checkDocument refuses anything that is not exactly one well-formed JSON
// value with one meaning: invalid UTF-8, bad syntax, trailing data, a key
// repeated in one object (encoding/json would silently keep the last), and
// what RFC 8785 cannot encode (lone surrogates, out-of-range numbers). No
// message quotes the document: only field names, which a person needs.
func checkDocument(raw []byte) error {
	if len(raw) > maxDocumentBytes {
		return docError(errcode.AuthorityTooLarge, "", fmt.Sprintf("the document is %d bytes; at most %d are read", len(raw), maxDocumentBytes))
	}
	if !utf8.Valid(raw) {
		return docError(errcode.AuthorityInvalidJSON, "", "the document is not valid UTF-8")
	}
	if err := checkDuplicateKeys(raw); err != nil {
		return err
	}
	if _, err := canon.CanonicalJSON(raw); err != nil {
		return docError(errcode.AuthorityInvalidJSON, "", "the document holds a lone surrogate or a number JSON cannot represent exactly")
	}
	return nil
}

// frame is one open object or array during the duplicate-key walk.
type frame struct {
	path      string
	object    bool
	expectKey bool
	key       string
	index     int
	keys      map[string]struct{}
}

func (f *frame) childPath() string {
	if f.object {
		return joinField(f.path, f.key)
	}
	return indexField(f.path, f.index)
}

// valueDone advances the enclosing container past one complete value.
func (f *frame) valueDone() {
	if f.object {
		f.expectKey = true
	} else {
		f.index++
	}
}

func checkDuplicateKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var stack []*frame
	seen := false
	syntax := func() error {
		return docError(errcode.AuthorityInvalidJSON, "", "the document is not one well-formed JSON value")
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) != 0 || !seen {
				return syntax()
			}
			break
		}
		if err != nil {
			return syntax()
		}
		seen = true
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].valueDone()
			} else if dec.More() {
				return syntax()
			}
			continue
		}
		if top != nil && top.object && top.expectKey {
			key := tok.(string) // the decoder only yields strings in key position
			if _, dup := top.keys[key]; dup {
				return docError(errcode.AuthorityInvalidJSON, joinField(top.path, key), "the key appears more than once in one object")
			}
			top.keys[key] = struct{}{}
			top.key, top.expectKey = key, false
			continue
		}
		path := ""
		if top != nil {
			path = top.childPath()
		}
		if d, ok := tok.(json.Delim); ok {
			f := &frame{path: path, object: d == '{', expectKey: d == '{'}
			if f.object {
				f.keys = map[string]struct{}{}
			}
			stack = append(stack, f)
			continue
		}
		if top == nil {
			if dec.More() {
				return syntax()
			}
			continue
		}
		top.valueDone()
	}
	return nil
}

func joinField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func indexField(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// jsonType names the type of a raw JSON value for messages.
func jsonType(raw json.RawMessage) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func wrongType(field, want string, raw json.RawMessage) error {
	return docError(errcode.AuthorityInvalidType, field, fmt.Sprintf("must be %s, not %s", want, jsonType(raw)))
}

// object decodes an object's members. Duplicates were refused by
// checkDocument, so a map loses nothing.
func object(field string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	if jsonType(raw) != "an object" {
		return nil, wrongType(field, "an object", raw)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, wrongType(field, "an object", raw)
	}
	return m, nil
}

// onlyFields refuses a member not in allowed, naming the first in sorted
// order so the same document always gets the same message.
func onlyFields(field string, m map[string]json.RawMessage, allowed ...string) error {
	var unknown []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return docError(errcode.AuthorityUnknownField, joinField(field, unknown[0]),
		fmt.Sprintf("is not a field runx knows here; the fields are %v", allowed))
}

func array(field string, raw json.RawMessage) ([]json.RawMessage, error) {
	if jsonType(raw) != "an array" {
		return nil, wrongType(field, "an array", raw)
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, wrongType(field, "an array", raw)
	}
	return a, nil
}

func str(field string, raw json.RawMessage) (string, error) {
	if jsonType(raw) != "a string" {
		return "", wrongType(field, "a string", raw)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", wrongType(field, "a string", raw)
	}
	return s, nil
}

// strs decodes an array of strings.
func strs(field string, raw json.RawMessage) ([]string, error) {
	items, err := array(field, raw)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, item := range items {
		if out[i], err = str(indexField(field, i), item); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func boolean(field string, raw json.RawMessage) (bool, error) {
	var b bool
	if jsonType(raw) != "a boolean" || json.Unmarshal(raw, &b) != nil {
		return false, wrongType(field, "a boolean", raw)
	}
	return b, nil
}

// integer decodes an integer of at least min. Only the plain integer
// spelling is accepted (no fraction, no exponent): one value, one spelling.
func integer(field string, raw json.RawMessage, min int64) (int64, error) {
	if jsonType(raw) != "a number" {
		return 0, wrongType(field, "an integer", raw)
	}
	text := string(bytes.TrimSpace(raw))
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if bytes.ContainsAny(raw, ".eE") {
			return 0, docError(errcode.AuthorityInvalidType, field, "must be an integer written without a fraction or exponent")
		}
		return 0, docError(errcode.AuthorityInvalidValue, field, fmt.Sprintf("must be at most %d", int64(maxLimit)))
	}
	if n < min {
		return 0, docError(errcode.AuthorityInvalidValue, field, fmt.Sprintf("must be at least %d", min))
	}
	if n > maxLimit {
		return 0, docError(errcode.AuthorityInvalidValue, field, fmt.Sprintf("must be at most %d", int64(maxLimit)))
	}
	return n, nil
}
