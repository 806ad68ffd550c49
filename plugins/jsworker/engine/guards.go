package engine

import (
	"math"

	"github.com/dop251/goja"

	"github.com/runxhq/runx/sdk/errcode"
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
// stops the VM. A guard that must read this or an argument as a string or a
// number converts it itself and leaves the converted value in the call, so
// the original sees a primitive and a module's toString or valueOf runs once,
// as it would without the guard. (Without the conversion "x".repeat(n) with
// n = { valueOf() { return 2 ** 30 } } would slip past.)
type guard func(call *goja.FunctionCall) *Error

// installGuards wraps the builtins whose result size follows from an
// argument rather than from memory the module already holds.
// The buffers' guards are guardBuffers', installed only for a program that
// names a buffer type (Program.usesBuffers).
func installGuards(rt *goja.Runtime, stop func(*Error)) error {
	proto := func(ctor string) *goja.Object {
		return rt.Get(ctor).ToObject(rt).Get("prototype").ToObject(rt)
	}
	str, arr := proto("String"), proto("Array")
	wraps := []struct {
		on    *goja.Object
		name  string
		check guard
	}{
		{str, "repeat", checkRepeat},
		{str, "padStart", checkPad},
		{str, "padEnd", checkPad},
		{str, "split", checkSplit},
		{arr, "fill", checkFill},
		{arr, "join", checkJoin},
		{rt.Get("Array").ToObject(rt), "from", checkFrom},
		{rt.Get("JSON").ToObject(rt), "parse", checkJSONParse},
	}
	for _, w := range wraps {
		if err := wrapMethod(rt, stop, w.on, w.name, w.check); err != nil {
			return err
		}
	}
	return nil
}

// wrapMethod replaces on[name] with a native function that runs check and
// then the original, with the receiver and arguments check left.
func wrapMethod(rt *goja.Runtime, stop func(*Error), on *goja.Object, name string, check guard) error {
	original, ok := goja.AssertFunction(on.Get(name))
	if !ok {
		return errMissingBuiltin(name)
	}
	wrapped := func(call goja.FunctionCall) goja.Value {
		// A copy: a guard's conversions must not write into the VM's stack,
		// which the arguments slice may share.
		call.Arguments = append([]goja.Value(nil), call.Arguments...)
		if err := check(&call); err != nil {
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

func checkUnits(what string, units float64) *Error {
	if units > maxStringUnits {
		return fault(errcode.ModuleMemoryExceeded, "%s would build a string of %.0f UTF-16 units, more than fits in the %d-byte heap ceiling", what, units, MaxHeapBytes)
	}
	return nil
}

func checkElements(what string, n float64) *Error {
	if n > maxArrayElements {
		return fault(errcode.ModuleMemoryExceeded, "%s would touch %.0f elements, more than fit in the %d-byte heap ceiling", what, n, MaxHeapBytes)
	}
	return nil
}

// thisString converts the receiver to a string, as a String.prototype
// method does first, and returns its length in UTF-16 units. A null or
// undefined receiver is left for the original to refuse.
func thisString(call *goja.FunctionCall) float64 {
	if call.This == nil || goja.IsUndefined(call.This) || goja.IsNull(call.This) {
		return 0
	}
	if _, ok := call.This.(goja.String); !ok {
		call.This = call.This.ToString()
	}
	return float64(call.This.(goja.String).Length())
}

// argument is call.Arguments[i], or undefined.
func argument(call *goja.FunctionCall, i int) goja.Value {
	if i < len(call.Arguments) {
		return call.Arguments[i]
	}
	return goja.Undefined()
}

// numberArg converts argument i to a number (an object through valueOf,
// once) and returns ToIntegerOrInfinity of it.
func numberArg(call *goja.FunctionCall, i int) float64 {
	v := argument(call, i)
	if obj, ok := v.(*goja.Object); ok {
		v = obj.ToNumber()
		call.Arguments[i] = v
	}
	f := v.ToFloat()
	if math.IsNaN(f) {
		return 0
	}
	return math.Trunc(f)
}

// stringArg converts argument i to a string unless it is undefined, and
// returns its length in UTF-16 units.
func stringArg(call *goja.FunctionCall, i int) (float64, bool) {
	v := argument(call, i)
	if goja.IsUndefined(v) {
		return 0, false
	}
	if _, ok := v.(goja.String); !ok {
		v = v.ToString()
		call.Arguments[i] = v
	}
	return float64(v.(goja.String).Length()), true
}

// lengthOf is ToLength(obj.length): what an array builtin walks. An array's
// length may be 2^32-1 with no elements, and {length: 1e15} is an array-like.
func lengthOf(obj *goja.Object) float64 {
	f := obj.Get("length").ToFloat()
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f > 1<<53-1:
		return 1<<53 - 1
	}
	return math.Trunc(f)
}

func checkRepeat(call *goja.FunctionCall) *Error {
	units, count := thisString(call), numberArg(call, 0)
	if math.IsInf(count, 0) || count <= 0 || units == 0 {
		return nil // "" or a RangeError from the original
	}
	return checkUnits("String.prototype.repeat", units*count)
}

func checkPad(call *goja.FunctionCall) *Error {
	units, target := thisString(call), numberArg(call, 0) // ToLength: Infinity is 2^53-1, too long
	if target <= units {
		return nil // the string is returned as it is
	}
	return checkUnits("String.prototype.padStart/padEnd", target)
}

// checkSplit bounds the pieces of a split: at most one per unit when the
// separator is empty or a pattern, one per separator length otherwise, and
// no more than the limit.
func checkSplit(call *goja.FunctionCall) *Error {
	units := thisString(call)
	pieces := units + 1
	if sep := argument(call, 0); !goja.IsUndefined(sep) {
		if _, pattern := sep.(*goja.Object); !pattern {
			if n, _ := stringArg(call, 0); n > 0 {
				pieces = math.Floor(units/n) + 1
			}
		}
	} else {
		pieces = 1
	}
	if !goja.IsUndefined(argument(call, 1)) {
		limit := numberArg(call, 1)
		if !math.IsInf(limit, 0) {
			limit = float64(uint32(int64(math.Mod(limit, 1<<32)))) // ToUint32
		}
		pieces = min(pieces, limit)
	}
	return checkElements("String.prototype.split", pieces)
}

// checkFill counts the slots fill(value, start, end) writes, by the spec's
// relative-index rules.
func checkFill(call *goja.FunctionCall) *Error {
	obj, ok := call.This.(*goja.Object)
	if !ok {
		return nil
	}
	length := lengthOf(obj)
	start, end := 0.0, length
	if !goja.IsUndefined(argument(call, 1)) {
		start = relativeIndex(numberArg(call, 1), length)
	}
	if !goja.IsUndefined(argument(call, 2)) {
		end = relativeIndex(numberArg(call, 2), length)
	}
	return checkElements("Array.prototype.fill", end-start)
}

func relativeIndex(rel, length float64) float64 {
	if rel < 0 {
		return max(length+rel, 0)
	}
	return min(rel, length)
}

// checkJoin bounds join by its walk and by its separators alone: length-1
// copies of the separator, before counting any element.
func checkJoin(call *goja.FunctionCall) *Error {
	obj, ok := call.This.(*goja.Object)
	if !ok {
		return nil
	}
	length := lengthOf(obj)
	if err := checkElements("Array.prototype.join", length); err != nil {
		return err
	}
	sep, given := stringArg(call, 0)
	if !given {
		sep = 1 // ","
	}
	return checkUnits("Array.prototype.join", max(length-1, 0)*sep)
}

// checkFrom bounds Array.from over a string, an array or an array-like. An
// other iterable is walked by its iterator, whose next() is JavaScript the
// interrupt reaches, or a builtin over memory the module already holds.
func checkFrom(call *goja.FunctionCall) *Error {
	switch source := argument(call, 0).(type) {
	case goja.String:
		return checkElements("Array.from", float64(source.Length()))
	case *goja.Object:
		if source.ClassName() != "Array" {
			if _, iterable := goja.AssertFunction(source.GetSymbol(goja.SymIterator)); iterable {
				return nil
			}
		}
		return checkElements("Array.from", lengthOf(source))
	}
	return nil
}

// checkJSONParse bounds JSON.parse's nesting: goja's parser recurses on the
// Go stack once per level, and "[".repeat(1e7) overflowed it, which is fatal
// to the process. The scan is one pass, and only over text long enough to
// nest that deep.
func checkJSONParse(call *goja.FunctionCall) *Error {
	if n, given := stringArg(call, 0); !given || n <= 2*MaxNestingDepth {
		return nil
	}
	if depth := jsonDepth(call.Arguments[0].String()); depth > MaxNestingDepth {
		return refuse(errcode.ModuleStackExceeded, "JSON.parse was given text nesting %d levels deep, more than %d", depth, MaxNestingDepth)
	}
	return nil
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
