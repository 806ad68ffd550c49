package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/runxhq/runx/sdk/errcode"
)

// maxSafeInteger is Number.MAX_SAFE_INTEGER, 2^53-1.
const maxSafeInteger = 1<<53 - 1

// decodeInput turns the call's JSON input into JavaScript values in one pass,
// refusing what JSON.parse would silently change: an integer literal outside
// the safe integer range (it would round; the caller should send a string),
// a document that is not an object, or nesting deeper than MaxNestingDepth.
// Floating-point literals keep IEEE 754 semantics, as JSON.parse gives them.
func decodeInput(rt *goja.Runtime, input []byte) (goja.Value, *Error) {
	if trimmed := bytes.TrimLeft(input, " \t\n\r"); len(trimmed) > 0 && trimmed[0] == '{' {
		if v, ok := fastDecode(rt, input); ok {
			return v, nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	d := inputDecoder{rt: rt, dec: dec, subject: "the input"}
	first, err := dec.Token()
	if err != nil {
		return nil, refuse(errcode.ModuleInputInvalid, "the input is not JSON: %v", err)
	}
	if first != json.Delim('{') {
		return nil, refuse(errcode.ModuleInputInvalid, "the input must be a JSON object")
	}
	v, e := d.object(nil, 1)
	if e != nil {
		return nil, e
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, refuse(errcode.ModuleInputInvalid, "the input has data after its JSON object")
	}
	return v, nil
}

// decodeValue turns one JSON document of any kind (a recorded answer to a
// script's request) into a JavaScript value under decodeInput's rules.
func decodeValue(rt *goja.Runtime, doc []byte, subject string) (goja.Value, *Error) {
	if v, ok := fastDecode(rt, doc); ok {
		return v, nil
	}
	return decodeTokens(rt, doc, subject)
}

// decodeTokens is decodeValue without the fast path.
func decodeTokens(rt *goja.Runtime, doc []byte, subject string) (goja.Value, *Error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	d := inputDecoder{rt: rt, dec: dec, subject: subject}
	v, e := d.next(nil, 0)
	if e != nil {
		return nil, e
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, refuse(errcode.ModuleInputInvalid, "%s has data after its JSON document", subject)
	}
	return v, nil
}

type inputDecoder struct {
	rt      *goja.Runtime
	dec     *json.Decoder
	subject string // what is being decoded, for messages: "the input"
}

// valuePath locates a value for an error message. It is a chain of parent
// links, rendered only when a refusal needs it, so decoding a large input
// builds no path strings.
type valuePath struct {
	parent *valuePath
	key    string
	index  int
}

func (p *valuePath) String() string {
	if p == nil {
		return "$"
	}
	if p.key != "" || p.index < 0 {
		return p.parent.String() + "." + p.key
	}
	return p.parent.String() + "[" + strconv.Itoa(p.index) + "]"
}

func (d *inputDecoder) value(tok json.Token, path *valuePath, depth int) (goja.Value, *Error) {
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxNestingDepth {
			return nil, refuse(errcode.ModuleInputInvalid, "%s nests deeper than %d levels at %s", d.subject, MaxNestingDepth, path)
		}
		if t == '{' {
			return d.object(path, depth+1)
		}
		return d.array(path, depth+1)
	case string:
		return d.rt.ToValue(t), nil
	case json.Number:
		return d.number(t, path)
	case bool:
		return d.rt.ToValue(t), nil
	case nil:
		return goja.Null(), nil
	}
	return nil, refuse(errcode.ModuleInputInvalid, "%s has an unexpected token at %s", d.subject, path)
}

func (d *inputDecoder) object(path *valuePath, depth int) (goja.Value, *Error) {
	obj := d.rt.NewObject()
	for d.dec.More() {
		keyTok, err := d.dec.Token()
		if err != nil {
			return nil, refuse(errcode.ModuleInputInvalid, "%s is not JSON: %v", d.subject, err)
		}
		key, _ := keyTok.(string)
		child := &valuePath{parent: path, key: key, index: -1}
		v, e := d.next(child, depth)
		if e != nil {
			return nil, e
		}
		// Define, never Set: a "__proto__" key must become an own property,
		// as JSON.parse makes it, not replace the object's prototype.
		if err := obj.DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, refuse(errcode.ModuleInputInvalid, "%s key %s cannot be defined: %v", d.subject, child, err)
		}
	}
	if _, err := d.dec.Token(); err != nil { // the closing brace
		return nil, refuse(errcode.ModuleInputInvalid, "%s is not JSON: %v", d.subject, err)
	}
	return obj, nil
}

func (d *inputDecoder) array(path *valuePath, depth int) (goja.Value, *Error) {
	var items []any
	for i := 0; d.dec.More(); i++ {
		v, e := d.next(&valuePath{parent: path, index: i}, depth)
		if e != nil {
			return nil, e
		}
		items = append(items, v)
	}
	if _, err := d.dec.Token(); err != nil { // the closing bracket
		return nil, refuse(errcode.ModuleInputInvalid, "%s is not JSON: %v", d.subject, err)
	}
	return d.rt.NewArray(items...), nil
}

func (d *inputDecoder) next(path *valuePath, depth int) (goja.Value, *Error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, refuse(errcode.ModuleInputInvalid, "%s is not JSON: %v", d.subject, err)
	}
	return d.value(tok, path, depth)
}

func (d *inputDecoder) number(n json.Number, path *valuePath) (goja.Value, *Error) {
	text := n.String()
	if !strings.ContainsAny(text, ".eE") {
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil || i > maxSafeInteger || i < -maxSafeInteger {
			return nil, refuse(errcode.ModuleInputUnsafeInteger,
				"%s integer %s at %s is outside JavaScript's safe integer range (±%d); pass exact large ids or amounts as strings",
				d.subject, text, path, int64(maxSafeInteger))
		}
		if i == 0 && strings.HasPrefix(text, "-") {
			return d.rt.ToValue(math.Copysign(0, -1)), nil // JSON.parse("-0") is -0
		}
		return d.rt.ToValue(i), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, refuse(errcode.ModuleInputInvalid, "%s number %s at %s is not a number", d.subject, text, path)
	}
	return d.rt.ToValue(f), nil // an out-of-range float is ±Infinity, as in JSON.parse
}
