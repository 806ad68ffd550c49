package engine

import (
	"math"
	"math/big"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/runxhq/runx/sdk/errcode"
)

// encodeOutput serialises a module's answer with JSON.stringify's rules
// (toJSON, wrapper objects unwrapped, undefined/function/symbol members
// dropped, non-finite numbers as null) under three bounds JSON.stringify
// lacks: the answer must be a plain object, the text may not exceed
// MaxOutputBytes (checked as it grows, so a module that references one
// large string a million times fails fast instead of building gigabytes),
// and nesting may not exceed MaxNestingDepth. Cycles and BigInts are
// refused as JSON.stringify refuses them.
//
// halted, when set, abandons the walk: the call has been stopped.
func encodeOutput(rt *goja.Runtime, in *intrinsics, v goja.Value, halted *atomic.Bool) ([]byte, *Error) {
	return encodeOutputUpTo(rt, in, v, halted, MaxOutputBytes)
}

// encodeOutputUpTo is encodeOutput with its own bound: a script's output
// may pass what one answer of the worker carries (it comes to the kernel
// in parts), up to MaxScriptOutputBytes.
func encodeOutputUpTo(rt *goja.Runtime, in *intrinsics, v goja.Value, halted *atomic.Bool, limit int) ([]byte, *Error) {
	obj, ok := v.(*goja.Object)
	if !ok || !isPlainObject(obj, in) {
		return nil, refuse(errcode.ModuleOutputInvalid, "the module must return a plain object (or a promise of one), not %s", describe(v))
	}
	e := outputEncoder{rt: rt, subject: "the output", buf: make([]byte, 0, 512), open: map[*goja.Object]bool{}, halted: halted, limit: limit}
	written, err := e.value("", v, nil, 0)
	if err != nil {
		return nil, err
	}
	if !written || len(e.buf) == 0 || e.buf[0] != '{' {
		return nil, refuse(errcode.ModuleOutputInvalid, "the module's answer does not serialise to a JSON object (its toJSON returned something else)")
	}
	return e.buf, nil
}

func isPlainObject(obj *goja.Object, in *intrinsics) bool {
	if _, callable := goja.AssertFunction(obj); callable || obj.ClassName() != "Object" {
		return false
	}
	proto := obj.Prototype()
	return proto == nil || proto.SameAs(in.objectPrototype)
}

type outputEncoder struct {
	// limit bounds the document; zero is MaxOutputBytes.
	limit   int
	rt      *goja.Runtime
	subject string // what is being encoded, for messages: "the output"
	// canonical writes RFC 8785 JSON instead: members sorted by UTF-16 code
	// units and numbers in the form jcs gives them (canonical.go).
	canonical bool
	buf       []byte
	open      map[*goja.Object]bool // objects on the current path, for cycles
	halted    *atomic.Bool
}

// errHalted ends a walk the supervisor has already answered for.
var errHalted = &Error{Code: errcode.ModuleCancelled, Message: "the call was stopped while its output was serialised"}

// value appends v's JSON text and reports whether v serialised at all
// (undefined, functions and symbols do not).
func (e *outputEncoder) value(key string, v goja.Value, path *valuePath, depth int) (bool, *Error) {
	if e.halted.Load() {
		return false, errHalted
	}
	if obj, ok := v.(*goja.Object); ok {
		if toJSON, ok := goja.AssertFunction(obj.Get("toJSON")); ok {
			replaced, err := toJSON(obj, e.rt.ToValue(key))
			if err != nil {
				panic(err) // a throw or an interrupt; execute maps it
			}
			v = replaced
		}
	}
	if obj, ok := v.(*goja.Object); ok {
		switch obj.ClassName() { // unwrap new Number(1) and friends, as the spec says
		case "Number":
			v = obj.ToNumber()
		case "String":
			v = obj.ToString()
		case "Boolean":
			v = e.rt.ToValue(obj.Export())
		case "BigInt":
			return false, refuse(errcode.ModuleOutputInvalid, "%s has a BigInt at %s; JSON has no BigInt (convert it to a string)", e.subject, path)
		}
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return false, nil
	case goja.IsNull(v):
		return true, e.write("null")
	}
	if _, ok := v.(*goja.Symbol); ok {
		return false, nil
	}
	if obj, ok := v.(*goja.Object); ok {
		if _, callable := goja.AssertFunction(obj); callable {
			return false, nil
		}
		return true, e.composite(obj, path, depth)
	}
	switch x := v.Export().(type) {
	case string:
		return true, e.quote(x)
	case bool:
		if x {
			return true, e.write("true")
		}
		return true, e.write("false")
	case int64:
		if e.canonical {
			return true, e.number(float64(x))
		}
		return true, e.write(strconv.FormatInt(x, 10))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return true, e.write("null")
		}
		if e.canonical {
			return true, e.number(x)
		}
		return true, e.write(v.String()) // ECMAScript Number::toString, as JSON.stringify
	case *big.Int:
		return false, refuse(errcode.ModuleOutputInvalid, "%s has a BigInt at %s; JSON has no BigInt (convert it to a string)", e.subject, path)
	}
	return false, nil
}

func (e *outputEncoder) composite(obj *goja.Object, path *valuePath, depth int) *Error {
	if depth >= MaxNestingDepth {
		return refuse(errcode.ModuleOutputInvalid, "%s nests deeper than %d levels at %s", e.subject, MaxNestingDepth, path)
	}
	if e.open[obj] {
		return refuse(errcode.ModuleOutputInvalid, "%s is cyclic at %s", e.subject, path)
	}
	e.open[obj] = true
	defer delete(e.open, obj)
	if obj.ClassName() == "Array" {
		return e.array(obj, path, depth)
	}
	return e.object(obj, path, depth)
}

func (e *outputEncoder) array(obj *goja.Object, path *valuePath, depth int) *Error {
	n := int64(lengthOf(obj))
	// Every element costs at least one byte and a comma, so a longer array
	// cannot fit; refuse before walking what may be a sparse 2^32 slots.
	if n > int64(e.max()/2) {
		return refuse(errcode.ModuleOutputTooLarge, "%s array at %s has %d elements, more than fit in %d bytes", e.subject, path, n, e.max())
	}
	if err := e.write("["); err != nil {
		return err
	}
	for i := int64(0); i < n; i++ {
		if i > 0 {
			if err := e.write(","); err != nil {
				return err
			}
		}
		key := strconv.FormatInt(i, 10)
		written, err := e.value(key, obj.Get(key), &valuePath{parent: path, index: int(i)}, depth+1)
		if err != nil {
			return err
		}
		if !written {
			if err := e.write("null"); err != nil {
				return err
			}
		}
	}
	return e.write("]")
}

func (e *outputEncoder) object(obj *goja.Object, path *valuePath, depth int) *Error {
	if err := e.write("{"); err != nil {
		return err
	}
	first := true
	keys := obj.Keys()
	if e.canonical {
		sortUTF16(keys)
	}
	for _, key := range keys {
		mark := len(e.buf)
		if !first {
			if err := e.write(","); err != nil {
				return err
			}
		}
		if err := e.quote(key); err != nil {
			return err
		}
		if err := e.write(":"); err != nil {
			return err
		}
		written, err := e.value(key, obj.Get(key), &valuePath{parent: path, key: key, index: -1}, depth+1)
		if err != nil {
			return err
		}
		if !written {
			e.buf = e.buf[:mark] // JSON.stringify drops the member entirely
			continue
		}
		first = false
	}
	return e.write("}")
}

func (e *outputEncoder) write(s string) *Error {
	e.buf = append(e.buf, s...)
	return e.check()
}

func (e *outputEncoder) check() *Error {
	if len(e.buf) > e.max() {
		return refuse(errcode.ModuleOutputTooLarge, "%s is larger than %d bytes", e.subject, e.max())
	}
	return nil
}

// quote appends s as a JSON string, escaping as JSON.stringify does, which
// is also exactly the escaping RFC 8785 prescribes.
func (e *outputEncoder) quote(s string) *Error {
	if len(e.buf)+len(s) > e.max() {
		return refuse(errcode.ModuleOutputTooLarge, "%s is larger than %d bytes", e.subject, e.max())
	}
	if e.canonical && !utf8.ValidString(s) {
		return refuse(errcode.ModuleOutputInvalid, "%s holds a string that is not valid Unicode", e.subject)
	}
	const hex = "0123456789abcdef"
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			e.buf = append(e.buf, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i:])
			e.buf = append(e.buf, s[i:i+size]...)
			i += size
			continue
		}
		switch c {
		case '"', '\\':
			e.buf = append(e.buf, '\\', c)
		case '\b':
			e.buf = append(e.buf, '\\', 'b')
		case '\f':
			e.buf = append(e.buf, '\\', 'f')
		case '\n':
			e.buf = append(e.buf, '\\', 'n')
		case '\r':
			e.buf = append(e.buf, '\\', 'r')
		case '\t':
			e.buf = append(e.buf, '\\', 't')
		default:
			e.buf = append(e.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
	}
	e.buf = append(e.buf, '"')
	return e.check()
}

// describe names a value's kind for an error message without running module
// code (no toString, no getters).
func describe(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if _, ok := v.(*goja.Symbol); ok {
		return "a symbol"
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		switch v.Export().(type) {
		case string:
			return "a string"
		case bool:
			return "a boolean"
		case int64, float64:
			return "a number"
		case *big.Int:
			return "a BigInt"
		}
		return "an unknown value"
	}
	if _, callable := goja.AssertFunction(obj); callable {
		return "a function"
	}
	switch class := obj.ClassName(); class {
	case "Array":
		return "an array"
	case "Object":
		return "an object with a non-Object prototype (a class instance?)"
	default:
		return "a " + class
	}
}

func (e *outputEncoder) max() int {
	if e.limit > 0 {
		return e.limit
	}
	return MaxOutputBytes
}
