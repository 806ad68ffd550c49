package engine

import (
	"strconv"

	"github.com/dop251/goja"

	"github.com/runxhq/runx/internal/jsonscan"
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
	p := fastParser{rt: rt, s: jsonscan.New(doc)}
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.s.Space()
	return v, p.s.Done()
}

// fastParser builds goja values from what internal/jsonscan reads as plain.
type fastParser struct {
	rt *goja.Runtime
	s  jsonscan.Scanner
}

func (p *fastParser) value(depth int) (goja.Value, bool) {
	p.s.Space()
	switch p.s.Next() {
	case jsonscan.Object:
		return p.object(depth + 1)
	case jsonscan.Array:
		return p.array(depth + 1)
	case jsonscan.String:
		s, ok := p.s.String()
		if !ok {
			return nil, false
		}
		return p.rt.ToValue(string(s)), true
	case jsonscan.Literal:
		switch lit, _ := p.s.Literal(); lit {
		case "true":
			return p.rt.ToValue(true), true
		case "false":
			return p.rt.ToValue(false), true
		case "null":
			return goja.Null(), true
		}
	case jsonscan.Integer:
		text, ok := p.s.Integer()
		if !ok {
			return nil, false
		}
		i, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil {
			return nil, false
		}
		return p.rt.ToValue(i), true
	}
	return nil, false
}

func (p *fastParser) object(depth int) (goja.Value, bool) {
	if depth > fastMaxDepth {
		return nil, false
	}
	p.s.Consume('{')
	obj := p.rt.NewObject()
	p.s.Space()
	if p.s.Consume('}') {
		return obj, true
	}
	for {
		p.s.Space()
		key, ok := p.s.String()
		if !ok {
			return nil, false
		}
		p.s.Space()
		if !p.s.Consume(':') {
			return nil, false
		}
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		// Define, as inputDecoder does: "__proto__" stays an own property.
		if err := obj.DefineDataProperty(string(key), v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, false
		}
		p.s.Space()
		switch {
		case p.s.Consume(','):
		case p.s.Consume('}'):
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
	p.s.Consume('[')
	var items []any
	p.s.Space()
	if p.s.Consume(']') {
		return p.rt.NewArray(), true
	}
	for {
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		items = append(items, v)
		p.s.Space()
		switch {
		case p.s.Consume(','):
		case p.s.Consume(']'):
			return p.rt.NewArray(items...), true
		default:
			return nil, false
		}
	}
}
