package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// ValidateJSON checks a JSON document, given as its bytes, against the
// schema: the answer is exactly what decoding it with encoding/json into any
// and calling Validate gives (a syntax error as err, or the first
// violation), but a valid document is checked in one pass over its bytes,
// without building its value. The plugin host checks every capability's
// output with it: a 4 MiB page of a log decoded whole cost four fifths of
// the kernel's CPU when it was read through the host (docs/PERFORMANCE.md).
//
// Every keyword of the subset is still enforced. The pass walks the document
// and the schema together; where a keyword needs a whole value (const,
// enum, uniqueItems, $ref, allOf, anyOf, oneOf, not) that value alone is
// decoded and checked by Validate's own code, and a string's content is
// decoded only where its schema constrains it (minLength, maxLength,
// pattern). Whenever the pass finds anything wrong, the document is decoded
// whole and checked the old way, so a refusal reads exactly as before.
func (s *Schema) ValidateJSON(raw []byte) (*Violation, error) {
	w := streamWalker{data: raw}
	if w.document(s.s) {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if bad := s.Validate(v); bad != nil {
		return bad, nil
	}
	// The pass refuses a few documents the decode accepts: a repeated
	// member name whose earlier value breaks the schema (encoding/json keeps
	// the last), or nesting deeper than its limit, which it also refuses.
	// Validate's answer over the decoded value stands, as it did before.
	return nil, nil
}

// streamMaxDepth is encoding/json's own nesting limit.
const streamMaxDepth = 10000

// errStream stops the pass; the caller decodes the document whole to say why.
var errStream = errors.New("stream check stopped")

// streamWalker reads one JSON document while checking it against a schema.
type streamWalker struct {
	data  []byte
	pos   int
	depth int
}

// document reports whether the whole of data is one JSON value valid under
// s, with nothing but whitespace after it.
func (w *streamWalker) document(s *schema) bool {
	if w.value(s) != nil {
		return false
	}
	w.space()
	return w.pos == len(w.data)
}

func (w *streamWalker) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// needsWhole reports whether s has a keyword that judges a container value
// as a whole, which the pass leaves to Validate over the decoded value.
func (s *schema) needsWhole() bool {
	return s.hasConst || s.hasEnum || s.uniqueItems || s.ref != nil || s.not != nil ||
		len(s.allOf) > 0 || len(s.anyOf) > 0 || len(s.oneOf) > 0
}

// constrainsString reports whether s judges a string by its content.
func (s *schema) constrainsString() bool {
	return s.minLength >= 0 || s.maxLength >= 0 || s.pattern != nil || s.needsWhole()
}

// value checks the value at w.pos against s (nil: anything) and moves past it.
func (w *streamWalker) value(s *schema) error {
	w.space()
	if w.pos >= len(w.data) {
		return errStream
	}
	if s != nil && s.boolean {
		if !s.always {
			return errStream
		}
		s = nil
	}
	c := w.data[w.pos]
	switch {
	case c == '{' || c == '[':
		if s != nil && s.needsWhole() {
			return w.whole(s)
		}
		return w.container(c, s)
	case c == '"':
		if s == nil || !s.constrainsString() {
			if s != nil && s.types != 0 && s.types&typeString == 0 {
				return errStream
			}
			return w.skipString()
		}
		return w.whole(s)
	default:
		return w.whole(s)
	}
}

// whole decodes the value at w.pos as encoding/json does and checks it
// with Validate's own code.
func (w *streamWalker) whole(s *schema) error {
	start := w.pos
	if err := w.skip(); err != nil {
		return err
	}
	if s == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(w.data[start:w.pos], &v); err != nil {
		return errStream
	}
	if s.check(v, nil) != nil {
		return errStream
	}
	return nil
}

func (w *streamWalker) object(s *schema) error {
	if s != nil && s.types != 0 && s.types&typeObject == 0 {
		return errStream
	}
	w.pos++ // '{'
	var found []bool
	if s != nil && len(s.required) > 0 {
		found = make([]bool, len(s.required))
	}
	w.space()
	if w.pos < len(w.data) && w.data[w.pos] == '}' {
		w.pos++
		return w.requiredFound(found)
	}
	for {
		w.space()
		name, err := w.key()
		if err != nil {
			return err
		}
		w.space()
		if w.pos >= len(w.data) || w.data[w.pos] != ':' {
			return errStream
		}
		w.pos++
		var sub *schema
		if s != nil {
			declared := false
			if sub, declared = s.properties[name]; !declared {
				sub = s.additional
			}
			for i, r := range s.required {
				if r == name {
					found[i] = true
				}
			}
		}
		if err := w.value(sub); err != nil {
			return err
		}
		w.space()
		if w.pos >= len(w.data) {
			return errStream
		}
		switch w.data[w.pos] {
		case ',':
			w.pos++
		case '}':
			w.pos++
			return w.requiredFound(found)
		default:
			return errStream
		}
	}
}

func (w *streamWalker) requiredFound(found []bool) error {
	for _, ok := range found {
		if !ok {
			return errStream
		}
	}
	return nil
}

// key reads a member name; a name with escapes is decoded as encoding/json does.
func (w *streamWalker) key() (string, error) {
	if w.pos >= len(w.data) || w.data[w.pos] != '"' {
		return "", errStream
	}
	start := w.pos
	escaped, err := w.scanString()
	if err != nil {
		return "", err
	}
	raw := w.data[start+1 : w.pos-1]
	if !escaped && ascii(raw) {
		return string(raw), nil
	}
	var name string
	if json.Unmarshal(w.data[start:w.pos], &name) != nil {
		return "", errStream
	}
	return name, nil
}

func (w *streamWalker) array(s *schema) error {
	if s != nil && s.types != 0 && s.types&typeArray == 0 {
		return errStream
	}
	w.pos++ // '['
	n := 0
	w.space()
	if w.pos < len(w.data) && w.data[w.pos] == ']' {
		w.pos++
		return s.itemCount(n)
	}
	for {
		var sub *schema
		if s != nil {
			sub = s.items
			if n < len(s.prefixItems) {
				sub = s.prefixItems[n]
			}
		}
		if err := w.value(sub); err != nil {
			return err
		}
		n++
		w.space()
		if w.pos >= len(w.data) {
			return errStream
		}
		switch w.data[w.pos] {
		case ',':
			w.pos++
		case ']':
			w.pos++
			return s.itemCount(n)
		default:
			return errStream
		}
	}
}

func (s *schema) itemCount(n int) error {
	if s == nil {
		return nil
	}
	if (s.minItems >= 0 && n < s.minItems) || (s.maxItems >= 0 && n > s.maxItems) {
		return errStream
	}
	return nil
}

// container checks the object or array opening with c against s (nil:
// anything), one level deeper, refusing nesting past encoding/json's limit.
func (w *streamWalker) container(c byte, s *schema) error {
	w.depth++
	if w.depth > streamMaxDepth {
		return errStream
	}
	var err error
	if c == '{' {
		err = w.object(s)
	} else {
		err = w.array(s)
	}
	w.depth--
	return err
}

// skip moves past one value of any kind, checking only its syntax.
func (w *streamWalker) skip() error {
	w.space()
	if w.pos >= len(w.data) {
		return errStream
	}
	switch c := w.data[w.pos]; {
	case c == '{' || c == '[':
		return w.container(c, nil)
	case c == '"':
		return w.skipString()
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	default:
		return w.number()
	}
}

func (w *streamWalker) skipString() error {
	_, err := w.scanString()
	return err
}

func (w *streamWalker) literal(word string) error {
	if len(w.data)-w.pos < len(word) || string(w.data[w.pos:w.pos+len(word)]) != word {
		return errStream
	}
	w.pos += len(word)
	return nil
}

// number moves past a number in JSON's grammar, refusing one encoding/json
// cannot hold in a float64 (it refuses 1e400 when decoding into any).
func (w *streamWalker) number() error {
	start := w.pos
	d := w.data
	i := w.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return errStream
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return errStream
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return errStream
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if _, err := strconv.ParseFloat(string(d[start:i]), 64); err != nil {
		return errStream
	}
	w.pos = i
	return nil
}

// scanString moves past the string at w.pos (its opening quote), checking
// its escapes and that no control byte appears raw, as encoding/json does;
// it reports whether the string holds an escape. A string's body is most of
// a large answer (a 4 MiB page of a log or of base64), so the scan leaves
// the byte-by-byte work to the quotes and backslashes: the next quote and
// the next backslash before it are found with bytes.IndexByte (vectorised
// by the runtime), and the run between them is checked for control bytes a
// word at a time (scanstring.go). The string is never materialised; invalid
// UTF-8 is left as encoding/json leaves it (it decodes to U+FFFD, it is
// not refused).
func (w *streamWalker) scanString() (escaped bool, err error) {
	d := w.data
	i := w.pos + 1
	for {
		// The run [i, q) holds no quote; q ends the string unless an
		// escape turns out to hold it (\").
		q := bytes.IndexByte(d[i:], '"')
		if q < 0 {
			return false, errStream
		}
		q += i
		for i <= q {
			b := bytes.IndexByte(d[i:q], '\\')
			if b < 0 {
				if hasControl(d[i:q]) {
					return false, errStream
				}
				w.pos = q + 1
				return escaped, nil
			}
			if hasControl(d[i : i+b]) {
				return false, errStream
			}
			i += b
			escaped = true
			n := escapeLen(d[i:])
			if n == 0 {
				return false, errStream
			}
			// Only \" can reach past q (a quote is no hex digit): the
			// quote was escaped, so the next one is looked for.
			i += n
		}
	}
}

// ascii reports whether b is all ASCII: a name with other bytes is decoded
// by encoding/json, which turns invalid UTF-8 into U+FFFD.
func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
