// Package jsonscan reads the plain subset of JSON that runx's fast paths
// handle: objects, arrays, strings without escapes or control characters in
// valid UTF-8, integers of at most 15 digits (always exact as a double,
// printed by ECMAScript as written) without a leading zero or -0, and the
// literals true, false and null. A fast path answers ok=false on anything
// else, and its caller falls back to a full decoder; the rules of what is
// plain live here, once, for every fast path (the JS worker's input decoder
// and the store driver's canonicalizer).
//
// It must not import kernel/ or plugins/: both sides use it.
package jsonscan

import "unicode/utf8"

// Kind is what the value at the scanner's position starts as.
type Kind uint8

const (
	Invalid Kind = iota
	Object
	Array
	String
	Integer
	Literal
)

// Scanner walks a document byte by byte; callers keep their own recursion
// and depth bound.
type Scanner struct {
	doc []byte
	i   int
}

// New returns a scanner at the start of doc.
func New(doc []byte) Scanner { return Scanner{doc: doc} }

// Space skips JSON whitespace.
func (s *Scanner) Space() {
	for s.i < len(s.doc) {
		switch s.doc[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Done reports whether the whole document has been read.
func (s *Scanner) Done() bool { return s.i == len(s.doc) }

// Consume skips c when it is the next byte.
func (s *Scanner) Consume(c byte) bool {
	if s.i < len(s.doc) && s.doc[s.i] == c {
		s.i++
		return true
	}
	return false
}

// Next says what the value at the position starts as (after Space).
func (s *Scanner) Next() Kind {
	if s.i >= len(s.doc) {
		return Invalid
	}
	switch c := s.doc[s.i]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == '-' || c >= '0' && c <= '9':
		return Integer
	case c == 't' || c == 'f' || c == 'n':
		return Literal
	}
	return Invalid
}

// String reads a plain string at the position (its opening quote) and
// returns its text, which is exactly its bytes.
func (s *Scanner) String() ([]byte, bool) {
	if !s.Consume('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for s.i < len(s.doc) {
		c := s.doc[s.i]
		switch {
		case c == '"':
			raw := s.doc[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(raw) {
				return nil, false
			}
			return raw, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	return nil, false
}

// Integer reads a plain integer and returns its text.
func (s *Scanner) Integer() ([]byte, bool) {
	start := s.i
	s.Consume('-')
	digits := s.i
	for s.i < len(s.doc) && s.doc[s.i] >= '0' && s.doc[s.i] <= '9' {
		s.i++
	}
	n := s.i - digits
	if n == 0 || n > 15 || (s.doc[digits] == '0' && (n > 1 || digits > start)) {
		return nil, false // no digits, too long, a leading zero, or -0
	}
	if s.i < len(s.doc) && (s.doc[s.i] == '.' || s.doc[s.i] == 'e' || s.doc[s.i] == 'E') {
		return nil, false
	}
	return s.doc[start:s.i], true
}

// Literal reads true, false or null and returns its text.
func (s *Scanner) Literal() (string, bool) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(s.doc)-s.i >= len(lit) && string(s.doc[s.i:s.i+len(lit)]) == lit {
			s.i += len(lit)
			return lit, true
		}
	}
	return "", false
}
