package engine

import (
	"math"

	"github.com/dop251/goja"
)

// goja runs builtins as Go code, and it checks for an interrupt only between
// JavaScript instructions. A builtin asked for a huge result therefore runs
// to completion before the heap watchdog can stop it: "x".repeat(2**30) spent
// 8 s writing 1 GiB, and new ArrayBuffer(2**40) asked Go for 1 TiB, which is
// a fatal error, not a panic. The guards below check the size a builtin is
// about to produce, from its arguments, and stop the call before it
// allocates. Each refuses only results that could not fit in MaxHeapBytes,
// so no module that could run within the ceiling notices them.

// guard checks a call before the original builtin runs; a non-nil *Error
// stops the VM.
type guard func(call goja.FunctionCall) *Error

// installGuards wraps the builtins whose result size follows from an
// argument rather than from memory the module already holds.
func installGuards(rt *goja.Runtime, in *intrinsics, stop func(*Error), buffers bool) error {
	proto := func(ctor string) *goja.Object {
		return rt.Get(ctor).ToObject(rt).Get("prototype").ToObject(rt)
	}
	str, arr := proto("String"), proto("Array")
	wraps := []struct {
		on    *goja.Object
		name  string
		check guard
	}{
		{str, "repeat", func(c goja.FunctionCall) *Error {
			return checkUnits("String.prototype.repeat", stringUnits(c.This)*integerArg(c, 0))
		}},
		{str, "padStart", func(c goja.FunctionCall) *Error {
			return checkUnits("String.prototype.padStart", integerArg(c, 0))
		}},
		{str, "padEnd", func(c goja.FunctionCall) *Error {
			return checkUnits("String.prototype.padEnd", integerArg(c, 0))
		}},
		{str, "split", checkSplit},
		{arr, "fill", func(c goja.FunctionCall) *Error {
			return checkElements("Array.prototype.fill", fillCount(rt, c))
		}},
		{arr, "join", func(c goja.FunctionCall) *Error {
			return checkJoin(rt, c)
		}},
		{rt.Get("Array").ToObject(rt), "from", func(c goja.FunctionCall) *Error {
			return checkElements("Array.from", arrayLikeLength(rt, c.Argument(0)))
		}},
	}
	for _, w := range wraps {
		if err := wrapMethod(rt, stop, w.on, w.name, w.check); err != nil {
			return err
		}
	}
	if err := guardJSONParse(rt, stop); err != nil {
		return err
	}
	if !buffers {
		return nil
	}
	return guardBuffers(rt, in, stop)
}

// wrapMethod replaces on[name] with a native function that runs check and
// then the original with the same receiver and arguments.
func wrapMethod(rt *goja.Runtime, stop func(*Error), on *goja.Object, name string, check guard) error {
	original, ok := goja.AssertFunction(on.Get(name))
	if !ok {
		return errMissingBuiltin(name)
	}
	wrapped := func(call goja.FunctionCall) goja.Value {
		if err := check(call); err != nil {
			stop(err)
			return goja.Undefined() // never used: the VM unwinds first
		}
		v, err := original(call.This, call.Arguments...)
		if err != nil {
			panic(err) // rethrows the JS exception, or keeps unwinding an interrupt
		}
		return v
	}
	return on.DefineDataProperty(name, rt.ToValue(wrapped), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

func checkUnits(what string, units int64) *Error {
	if units > maxStringUnits {
		return fault(CodeMemoryExceeded, "%s would build a string of %d UTF-16 units, more than fits in the %d-byte heap ceiling", what, units, MaxHeapBytes)
	}
	return nil
}

func checkElements(what string, n int64) *Error {
	if n > maxArrayElements {
		return fault(CodeMemoryExceeded, "%s would touch %d elements, more than fit in the %d-byte heap ceiling", what, n, MaxHeapBytes)
	}
	return nil
}

// stringUnits is the UTF-16 length of v as a string, or 0 when v is not a
// primitive string (the original builtin then coerces or throws, and the
// coerced value came from memory the module already holds).
func stringUnits(v goja.Value) int64 {
	if s, ok := v.(goja.String); ok {
		return int64(s.Length())
	}
	return 0
}

// integerArg is ToIntegerOrInfinity of a number argument, saturated; other
// argument types count as 0 so the guard never runs module code (valueOf)
// itself. The original builtin does the full coercion.
func integerArg(call goja.FunctionCall, i int) int64 {
	switch n := call.Argument(i).Export().(type) {
	case int64:
		return n
	case float64:
		if math.IsNaN(n) {
			return 0
		}
		if n >= math.MaxInt64/4 {
			return math.MaxInt64 / 4
		}
		return int64(n)
	}
	return 0
}

// checkSplit bounds the pieces of a split: at most one per unit when the
// separator is empty or a pattern, one per separator length otherwise.
func checkSplit(call goja.FunctionCall) *Error {
	units := stringUnits(call.This)
	if units <= maxArrayElements {
		return nil
	}
	pieces := units + 1
	if sep, ok := call.Argument(0).(goja.String); ok && sep.Length() > 0 {
		pieces = units/int64(sep.Length()) + 1
	}
	if limit := call.Argument(1); !goja.IsUndefined(limit) {
		pieces = min(pieces, max(integerArg(call, 1), 0))
	}
	return checkElements("String.prototype.split", pieces)
}

// arrayLikeLength is the length a builtin would walk for v: a string's
// length, or an object's length property (an array's length may be huge and
// sparse, and {length: 1e15} is a valid array-like).
func arrayLikeLength(rt *goja.Runtime, v goja.Value) int64 {
	if s, ok := v.(goja.String); ok {
		return int64(s.Length())
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return 0
	}
	return toLength(obj.Get("length"))
}

func toLength(v goja.Value) int64 {
	if v == nil {
		return 0
	}
	f := v.ToFloat()
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f >= 1<<53:
		return 1<<53 - 1
	}
	return int64(f)
}

// fillCount is how many slots fill(value, start, end) writes, following the
// spec's relative-index rules.
func fillCount(rt *goja.Runtime, call goja.FunctionCall) int64 {
	obj, ok := call.This.(*goja.Object)
	if !ok {
		return 0
	}
	length := toLength(obj.Get("length"))
	start := relativeIndex(call, 1, 0, length)
	end := relativeIndex(call, 2, length, length)
	return max(end-start, 0)
}

func relativeIndex(call goja.FunctionCall, i int, absent, length int64) int64 {
	if goja.IsUndefined(call.Argument(i)) {
		return absent
	}
	rel := integerArg(call, i)
	if rel < 0 {
		return max(length+rel, 0)
	}
	return min(rel, length)
}

// checkJoin bounds join's result by its separators alone: length-1 copies of
// the separator, before counting any element.
func checkJoin(rt *goja.Runtime, call goja.FunctionCall) *Error {
	obj, ok := call.This.(*goja.Object)
	if !ok {
		return nil
	}
	length := toLength(obj.Get("length"))
	if err := checkElements("Array.prototype.join", length); err != nil {
		return err
	}
	sep := int64(1)
	if s, ok := call.Argument(0).(goja.String); ok {
		sep = int64(s.Length())
	}
	return checkUnits("Array.prototype.join", max(length-1, 0)*sep)
}

// guardJSONParse bounds JSON.parse's nesting: goja's parser recurses on the
// Go stack once per level, and "[".repeat(1e7) overflowed it, which is fatal
// to the process. The check is a single pass over the text and runs only
// when the text is long enough to nest that deep.
func guardJSONParse(rt *goja.Runtime, stop func(*Error)) error {
	json := rt.Get("JSON").ToObject(rt)
	return wrapMethod(rt, stop, json, "parse", func(c goja.FunctionCall) *Error {
		text, ok := c.Argument(0).(goja.String)
		if !ok || text.Length() <= 2*MaxNestingDepth {
			return nil
		}
		if depth := jsonDepth(text.String()); depth > MaxNestingDepth {
			return refuse(CodeStackExceeded, "JSON.parse was given text nesting %d levels deep, more than %d", depth, MaxNestingDepth)
		}
		return nil
	})
}

// jsonDepth is the deepest bracket nesting of JSON text, outside strings.
func jsonDepth(text string) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}
