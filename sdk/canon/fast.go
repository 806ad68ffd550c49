package canon

import (
	"bytes"
	"slices"

	"github.com/runxhq/runx/internal/jsonscan"
)

// fastCanonical is CanonicalJSON's fast path.
//
// A general JCS implementation builds a tree of every value to re-serialize
// numbers as IEEE doubles. Documents are overwhelmingly objects of ASCII
// keys, plain strings and small integers, whose canonical form is their own
// text with whitespace dropped and members sorted; fastCanonical produces
// exactly that and bails out on anything else (escapes, non-ASCII keys,
// fractions, exponents, big integers, any doubt about validity), which
// gowebpki/jcs then handles or refuses. The property test in fast_test.go
// holds the two to the same output.
const fastMaxDepth = 64

func fastCanonical(doc []byte) ([]byte, bool) {
	p := fastParser{s: jsonscan.New(doc)}
	p.s.Space()
	out, ok := p.value(make([]byte, 0, len(doc)), 0)
	if !ok {
		return nil, false
	}
	p.s.Space()
	return out, p.s.Done()
}

// fastParser writes the canonical form of what internal/jsonscan reads as
// plain: a plain string, integer or literal is its own canonical text.
type fastParser struct{ s jsonscan.Scanner }

func (p *fastParser) value(out []byte, depth int) ([]byte, bool) {
	if depth > fastMaxDepth {
		return nil, false
	}
	var text []byte
	ok := false
	switch p.s.Next() {
	case jsonscan.Object:
		return p.object(out, depth)
	case jsonscan.Array:
		return p.array(out, depth)
	case jsonscan.String:
		if text, ok = p.s.String(); ok {
			out = append(out, '"')
			out = append(out, text...)
			return append(out, '"'), true
		}
	case jsonscan.Integer:
		if text, ok = p.s.Integer(); ok {
			return append(out, text...), true
		}
	case jsonscan.Literal:
		if lit, ok := p.s.Literal(); ok {
			return append(out, lit...), true
		}
	}
	return nil, false
}

// fastMember is one object member: its key, and where its canonical value
// lies in the object's scratch buffer.
type fastMember struct {
	key        []byte
	start, end int
}

func (p *fastParser) object(out []byte, depth int) ([]byte, bool) {
	p.s.Consume('{')
	var stack [16]fastMember
	members := stack[:0]
	var values []byte // every member's canonical value, end to end
	p.s.Space()
	if p.s.Consume('}') {
		return append(out, "{}"...), true
	}
	for {
		p.s.Space()
		key, ok := p.s.String()
		if !ok || !ascii(key) {
			return nil, false // non-ASCII keys sort by UTF-16, left to jcs
		}
		p.s.Space()
		if !p.s.Consume(':') {
			return nil, false
		}
		p.s.Space()
		start := len(values)
		if values, ok = p.value(values, depth+1); !ok {
			return nil, false
		}
		members = append(members, fastMember{key, start, len(values)})
		p.s.Space()
		if p.s.Consume(',') {
			continue
		}
		if !p.s.Consume('}') {
			return nil, false
		}
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
	p.s.Consume('[')
	out = append(out, '[')
	p.s.Space()
	if p.s.Consume(']') {
		return append(out, ']'), true
	}
	for first := true; ; first = false {
		if !first {
			out = append(out, ',')
		}
		p.s.Space()
		var ok bool
		if out, ok = p.value(out, depth+1); !ok {
			return nil, false
		}
		p.s.Space()
		if p.s.Consume(',') {
			continue
		}
		if !p.s.Consume(']') {
			return nil, false
		}
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
