package engine

import (
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// fastMaxDepth is the nesting the fast path handles before it gives up.
const fastMaxDepth = 512

// fastDecode decodes the JSON documents that make up nearly every input and
// recorded answer, objects of plain strings, small integers and literals,
// several times faster than inputDecoder: encoding/json's Token API
// allocates for every token and builds an error for every nested value it
// reads. It handles a document only when its meaning is beyond doubt, and
// says ok=false on anything else (an escape, invalid UTF-8, a fraction, an
// exponent, an integer of 16 or more digits, -0, deep nesting, or any
// malformation), which inputDecoder then decodes or refuses with its
// messages. Both give the same values; a differential test holds them to it.
func fastDecode(rt *goja.Runtime, doc []byte) (goja.Value, bool) {
	p := fastParser{rt: rt, doc: doc}
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(doc)
}

type fastParser struct {
	rt  *goja.Runtime
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

func (p *fastParser) value(depth int) (goja.Value, bool) {
	p.space()
	if p.i >= len(p.doc) {
		return nil, false
	}
	switch c := p.doc[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		return p.rt.ToValue(s), true
	case c == 't':
		return p.literal("true", p.rt.ToValue(true))
	case c == 'f':
		return p.literal("false", p.rt.ToValue(false))
	case c == 'n':
		return p.literal("null", goja.Null())
	case c == '-' || c >= '0' && c <= '9':
		return p.integer()
	}
	return nil, false
}

func (p *fastParser) literal(text string, v goja.Value) (goja.Value, bool) {
	if len(p.doc)-p.i < len(text) || string(p.doc[p.i:p.i+len(text)]) != text {
		return nil, false
	}
	p.i += len(text)
	return v, true
}

// integer takes an integer of at most 15 digits, always a safe integer, and
// leaves everything else to the slow path.
func (p *fastParser) integer() (goja.Value, bool) {
	start := p.i
	if p.doc[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.doc) && p.doc[p.i] >= '0' && p.doc[p.i] <= '9' {
		p.i++
	}
	n := p.i - digits
	if n == 0 || n > 15 || (n > 1 && p.doc[digits] == '0') {
		return nil, false
	}
	if p.i < len(p.doc) && (p.doc[p.i] == '.' || p.doc[p.i] == 'e' || p.doc[p.i] == 'E') {
		return nil, false
	}
	text := string(p.doc[start:p.i])
	if text == "-0" {
		return nil, false
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, false
	}
	return p.rt.ToValue(i), true
}

// str takes a string with no escape and no control character, in valid
// UTF-8, whose text is then exactly its bytes.
func (p *fastParser) str() (string, bool) {
	p.i++ // the opening quote
	start := p.i
	ascii := true
	for p.i < len(p.doc) {
		c := p.doc[p.i]
		switch {
		case c == '"':
			raw := p.doc[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(raw) {
				return "", false
			}
			return string(raw), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		p.i++
	}
	return "", false
}

func (p *fastParser) object(depth int) (goja.Value, bool) {
	if depth > fastMaxDepth {
		return nil, false
	}
	p.i++ // {
	obj := p.rt.NewObject()
	p.space()
	if p.i < len(p.doc) && p.doc[p.i] == '}' {
		p.i++
		return obj, true
	}
	for {
		p.space()
		if p.i >= len(p.doc) || p.doc[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.doc) || p.doc[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		// Define, as inputDecoder does: "__proto__" stays an own property.
		if err := obj.DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, false
		}
		p.space()
		if p.i >= len(p.doc) {
			return nil, false
		}
		switch p.doc[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return obj, true
		default:
			return nil, false
		}
	}
}

func (p *fastParser) array(depth int) (goja.Value, bool) {
	if depth > fastMaxDepth {
		return nil, false
	}
	p.i++ // [
	var items []any
	p.space()
	if p.i < len(p.doc) && p.doc[p.i] == ']' {
		p.i++
		return p.rt.NewArray(), true
	}
	for {
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		items = append(items, v)
		p.space()
		if p.i >= len(p.doc) {
			return nil, false
		}
		switch p.doc[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.rt.NewArray(items...), true
		default:
			return nil, false
		}
	}
}
