package contract

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// ErrNotOneJSONValue is a document that is not exactly one well-formed JSON
// value.
var ErrNotOneJSONValue = errors.New("not exactly one well-formed JSON value")

// DuplicateKey checks raw is exactly one well-formed JSON value in UTF-8 and returns
// the path (a.b[2].c) of the first key repeated within one object, at any
// depth, or "" when none is. encoding/json keeps the last of two equal
// keys, so a document read with it alone could mean one thing to runx and
// another to whoever wrote or checked it; a host document is refused
// instead. A malformed document returns ErrNotOneJSONValue.
//
// It reads raw in place (json.Valid, then one walk that copies only keys),
// so a 64 MiB document costs no second copy of itself.
func DuplicateKey(raw []byte) (string, error) {
	if !utf8.Valid(raw) || !json.Valid(raw) {
		return "", ErrNotOneJSONValue
	}
	w := dupWalker{b: raw}
	w.space()
	if err := w.value(); err != nil && !errors.Is(err, errDuplicate) {
		return "", err
	}
	return w.dup, nil
}

// dupWalker walks a document json.Valid accepted, so it checks no syntax.
type dupWalker struct {
	b   []byte
	i   int
	dup string
	// at is where the walk is: a key, or an index when key is empty and
	// index is set; the path is built only for a duplicate.
	at []step
}

type step struct {
	key   string
	index int
}

func (w *dupWalker) path() string {
	p := ""
	for _, s := range w.at {
		switch {
		case s.index >= 0:
			p += "[" + strconv.Itoa(s.index) + "]"
		case p == "":
			p = s.key
		default:
			p += "." + s.key
		}
	}
	return p
}

// errDuplicate stops the walk at the first duplicate, which DuplicateKey
// reports as a path, not an error.
var errDuplicate = errors.New("duplicate key")

func (w *dupWalker) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// value walks the value at w.i.
func (w *dupWalker) value() error {
	switch w.b[w.i] {
	case '{':
		w.i++
		w.space()
		keys := map[string]struct{}{}
		for w.b[w.i] != '}' {
			key := w.key()
			w.at = append(w.at, step{key: key, index: -1})
			if _, seen := keys[key]; seen {
				w.dup = w.path()
				return errDuplicate
			}
			keys[key] = struct{}{}
			w.space()
			w.i++ // ':'
			w.space()
			if err := w.value(); err != nil {
				return err
			}
			w.at = w.at[:len(w.at)-1]
			w.space()
			if w.b[w.i] == ',' {
				w.i++
				w.space()
			}
		}
		w.i++
	case '[':
		w.i++
		w.space()
		for n := 0; w.b[w.i] != ']'; n++ {
			w.at = append(w.at, step{index: n})
			if err := w.value(); err != nil {
				return err
			}
			w.at = w.at[:len(w.at)-1]
			w.space()
			if w.b[w.i] == ',' {
				w.i++
				w.space()
			}
		}
		w.i++
	case '"':
		w.str()
	default:
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return nil
			}
			w.i++
		}
	}
	return nil
}

// str skips a string and returns its raw text, quotes included, and
// whether it holds an escape.
func (w *dupWalker) str() ([]byte, bool) {
	start := w.i
	escaped := false
	w.i++
	for w.b[w.i] != '"' {
		if w.b[w.i] == '\\' {
			escaped = true
			w.i++
		}
		w.i++
	}
	w.i++
	return w.b[start:w.i], escaped
}

// key reads an object key as its text ("a" and "\u0061" are one key).
func (w *dupWalker) key() string {
	raw, escaped := w.str()
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // valid JSON: it decodes
	return s
}
