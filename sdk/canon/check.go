package canon

import (
	"strconv"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// IsCanonical reports whether b is exactly the RFC 8785 form of the one JSON
// document it holds, that is whether CanonicalJSON(b) would succeed and
// return b unchanged. It decides that in one pass without building the
// document, a few times faster than canonicalising and comparing, which
// matters to a verifier that must show every stored receipt of a 30,002-
// receipt tree is canonical. It is checked against CanonicalJSON by a
// differential test and fuzz target in this package.
func IsCanonical(b []byte) bool {
	c := checker{b: b}
	return c.value(0) && c.i == len(b)
}

// maxNesting matches the nesting jcs accepts, so both refuse the same
// documents.
const maxNesting = 10000

type checker struct {
	b []byte
	i int
}

func (c *checker) at(ch byte) bool { return c.i < len(c.b) && c.b[c.i] == ch }

func (c *checker) value(depth int) bool {
	if c.i >= len(c.b) {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return c.object(depth + 1)
	case ch == '[':
		return c.array(depth + 1)
	case ch == '"':
		_, ok := c.str()
		return ok
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	}
	return false
}

func (c *checker) literal(lit string) bool {
	if len(c.b)-c.i < len(lit) || string(c.b[c.i:c.i+len(lit)]) != lit {
		return false
	}
	c.i += len(lit)
	return true
}

// number accepts a token only if it is the ECMAScript form of the double it
// denotes, which is what JCS writes; that also rules out every token that is
// not a JSON number, since that form always is one.
func (c *checker) number() bool {
	start := c.i
	for c.i < len(c.b) {
		ch := c.b[c.i]
		if !(ch >= '0' && ch <= '9' || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E') {
			break
		}
		c.i++
	}
	tok := string(c.b[start:c.i])
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		return false
	}
	want, err := jcs.NumberToJSON(f)
	return err == nil && want == tok
}

func (c *checker) array(depth int) bool {
	if depth > maxNesting {
		return false
	}
	c.i++ // [
	if c.at(']') {
		c.i++
		return true
	}
	for {
		if !c.value(depth) {
			return false
		}
		switch {
		case c.at(','):
			c.i++
		case c.at(']'):
			c.i++
			return true
		default:
			return false
		}
	}
}

// object also checks that members are in strictly ascending order of their
// names' UTF-16 code units, which rules out duplicate names too.
func (c *checker) object(depth int) bool {
	if depth > maxNesting {
		return false
	}
	c.i++ // {
	if c.at('}') {
		c.i++
		return true
	}
	var prev []byte
	for first := true; ; first = false {
		if !c.at('"') {
			return false
		}
		name, ok := c.str()
		if !ok || !first && compareNames(prev, name) >= 0 {
			return false
		}
		prev = name
		if !c.at(':') {
			return false
		}
		c.i++
		if !c.value(depth) {
			return false
		}
		switch {
		case c.at(','):
			c.i++
		case c.at('}'):
			c.i++
			return true
		default:
			return false
		}
	}
}

// str checks a string in JCS form and returns its content between the
// quotes. JCS escapes exactly '"', '\\' and the control characters: those
// with a short escape use it, the rest use \u00xx in lower case. Anything
// else, including '/', DEL and all non-ASCII text, appears as itself in
// valid UTF-8.
func (c *checker) str() ([]byte, bool) {
	c.i++ // opening quote
	start := c.i
	for c.i < len(c.b) {
		ch := c.b[c.i]
		switch {
		case ch == '"':
			content := c.b[start:c.i]
			c.i++
			return content, true
		case ch == '\\':
			n := escapeLen(c.b[c.i:])
			if n == 0 {
				return nil, false
			}
			c.i += n
		case ch < 0x20:
			return nil, false
		case ch < utf8.RuneSelf:
			c.i++
		default:
			r, size := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, false
			}
			c.i += size
		}
	}
	return nil, false
}

// escapeLen returns the length of the canonical escape at the start of s, or
// 0 if s does not start with one.
func escapeLen(s []byte) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(s) < 6 || s[2] != '0' || s[3] != '0' {
			return 0
		}
		hi, lo := lowerHex(s[4]), lowerHex(s[5])
		if hi < 0 || lo < 0 {
			return 0
		}
		switch r := hi<<4 | lo; {
		case r >= 0x20, r == '\b', r == '\f', r == '\n', r == '\r', r == '\t':
			return 0 // not escaped this way in JCS
		}
		return 6
	}
	return 0
}

func lowerHex(ch byte) int {
	switch {
	case ch >= '0' && ch <= '9':
		return int(ch - '0')
	case ch >= 'a' && ch <= 'f':
		return int(ch-'a') + 10
	}
	return -1
}

// compareNames orders two canonical string contents by the UTF-16 code units
// of the text they encode, as RFC 8785 §3.2.3 orders object members.
func compareNames(a, b []byte) int {
	for len(a) > 0 && len(b) > 0 {
		ra, na := nextRune(a)
		rb, nb := nextRune(b)
		if ra != rb {
			return utf16Order(ra, rb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// utf16Order compares two different code points by their UTF-16 encoding. A
// code point above U+FFFF is encoded from a high surrogate (U+D800-U+DBFF),
// so it sorts before U+E000-U+FFFF though its value is larger.
func utf16Order(a, b rune) int {
	if ua, ub := firstUnit(a), firstUnit(b); ua != ub {
		return int(ua) - int(ub)
	}
	// Same first unit: both are above U+FFFF in one surrogate block, and
	// their low surrogates order as the code points do.
	return int(a - b)
}

func firstUnit(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}

// nextRune decodes one character of string content that str has accepted.
func nextRune(s []byte) (rune, int) {
	if s[0] != '\\' {
		return utf8.DecodeRune(s)
	}
	switch s[1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		return rune(lowerHex(s[4])<<4 | lowerHex(s[5])), 6
	}
	return rune(s[1]), 2 // '"' or '\\'
}
