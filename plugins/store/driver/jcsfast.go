package driver

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// canonicalize returns the RFC 8785 form of a JSON document.
//
// Every append canonicalizes its event, and a general JCS implementation
// builds a tree of every value to re-serialize numbers as IEEE doubles. Event
// documents are overwhelmingly objects of ASCII keys, plain strings and
// small integers, whose canonical form is their own text with whitespace
// dropped and members sorted; fastCanonical produces exactly that and bails
// out on anything else (escapes, non-ASCII keys, fractions, exponents, big
// integers, any doubt about validity), which gowebpki/jcs then handles or
// refuses. The property test in jcsfast_test.go holds the two to the same
// output.
func canonicalize(doc []byte) ([]byte, error) {
	if out, ok := fastCanonical(doc); ok {
		return out, nil
	}
	return jcs.Transform(doc)
}

const fastMaxDepth = 64

func fastCanonical(doc []byte) ([]byte, bool) {
	p := fastParser{doc: doc}
	p.space()
	out, ok := p.value(make([]byte, 0, len(doc)), 0)
	if !ok {
		return nil, false
	}
	p.space()
	return out, p.i == len(doc)
}

type fastParser struct {
	doc []byte
	i   int
}

func (p *fastParser) space() {
	for p.i < len(p.doc) {
		switch p.doc[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) value(out []byte, depth int) ([]byte, bool) {
	if p.i >= len(p.doc) || depth > fastMaxDepth {
		return nil, false
	}
	switch c := p.doc[p.i]; {
	case c == '{':
		return p.object(out, depth)
	case c == '[':
		return p.array(out, depth)
	case c == '"':
		s, ok := p.plainString()
		if !ok {
			return nil, false
		}
		// A plain string's canonical form is itself.
		out = append(out, '"')
		out = append(out, s...)
		return append(out, '"'), true
	case c == '-' || (c >= '0' && c <= '9'):
		return p.integer(out)
	}
	for _, lit := range []string{"true", "false", "null"} {
		if strings.HasPrefix(string(p.doc[p.i:min(len(p.doc), p.i+5)]), lit) {
			p.i += len(lit)
			return append(out, lit...), true
		}
	}
	return nil, false
}

// plainString reads a string with no escapes and valid UTF-8 without
// control characters: its canonical form is itself.
func (p *fastParser) plainString() ([]byte, bool) {
	start := p.i + 1
	for j := start; j < len(p.doc); j++ {
		switch c := p.doc[j]; {
		case c == '"':
			s := p.doc[start:j]
			p.i = j + 1
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// integer reads an integer of at most 15 digits without a leading zero: its
// double is exact and ECMAScript prints it as written.
func (p *fastParser) integer(out []byte) ([]byte, bool) {
	start := p.i
	if p.doc[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.doc) && p.doc[p.i] >= '0' && p.doc[p.i] <= '9' {
		p.i++
	}
	n := p.i - digits
	if n == 0 || n > 15 || (p.doc[digits] == '0' && (n > 1 || digits > start)) {
		return nil, false // no digits, too long, a leading zero, or -0
	}
	if p.i < len(p.doc) && (p.doc[p.i] == '.' || p.doc[p.i] == 'e' || p.doc[p.i] == 'E') {
		return nil, false
	}
	return append(out, p.doc[start:p.i]...), true
}

// fastMember is one object member: its key, and where its canonical value
// lies in the object's scratch buffer.
type fastMember struct {
	key        []byte
	start, end int
}

func (p *fastParser) object(out []byte, depth int) ([]byte, bool) {
	p.i++
	var stack [16]fastMember
	members := stack[:0]
	var values []byte // every member's canonical value, end to end
	p.space()
	if p.i < len(p.doc) && p.doc[p.i] == '}' {
		p.i++
		return append(out, "{}"...), true
	}
	for {
		p.space()
		if p.i >= len(p.doc) || p.doc[p.i] != '"' {
			return nil, false
		}
		key, ok := p.plainString()
		if !ok || !ascii(key) {
			return nil, false // non-ASCII keys sort by UTF-16, left to jcs
		}
		p.space()
		if p.i >= len(p.doc) || p.doc[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		start := len(values)
		if values, ok = p.value(values, depth+1); !ok {
			return nil, false
		}
		members = append(members, fastMember{key, start, len(values)})
		p.space()
		if p.i >= len(p.doc) {
			return nil, false
		}
		if p.doc[p.i] == ',' {
			p.i++
			continue
		}
		if p.doc[p.i] != '}' {
			return nil, false
		}
		p.i++
		break
	}
	slices.SortFunc(members, func(a, b fastMember) int { return bytes.Compare(a.key, b.key) })
	out = append(out, '{')
	for i, m := range members {
		if i > 0 {
			if bytes.Equal(m.key, members[i-1].key) {
				return nil, false // a duplicate key: jcs refuses it
			}
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, m.key...)
		out = append(out, '"', ':')
		out = append(out, values[m.start:m.end]...)
	}
	return append(out, '}'), true
}

func (p *fastParser) array(out []byte, depth int) ([]byte, bool) {
	p.i++
	out = append(out, '[')
	p.space()
	if p.i < len(p.doc) && p.doc[p.i] == ']' {
		p.i++
		return append(out, ']'), true
	}
	for first := true; ; first = false {
		if !first {
			out = append(out, ',')
		}
		p.space()
		var ok bool
		if out, ok = p.value(out, depth+1); !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.doc) {
			return nil, false
		}
		if p.doc[p.i] == ',' {
			p.i++
			continue
		}
		if p.doc[p.i] != ']' {
			return nil, false
		}
		p.i++
		return append(out, ']'), true
	}
}

func ascii(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
