package engine

import (
	"strings"

	"github.com/dop251/goja"

	"github.com/runxhq/runx/sdk/errcode"
)

// bufferConstructors allocate a Go byte slice sized by their argument. goja
// catches only make's "len out of range" panic, so new ArrayBuffer(2**40)
// reaches the allocator and kills the process.
var bufferConstructors = []struct {
	name        string
	elementSize int64
}{
	{"ArrayBuffer", 1}, {"Int8Array", 1}, {"Uint8Array", 1}, {"Uint8ClampedArray", 1},
	{"Int16Array", 2}, {"Uint16Array", 2}, {"Int32Array", 4}, {"Uint32Array", 4},
	{"Float32Array", 4}, {"Float64Array", 8}, {"BigInt64Array", 8}, {"BigUint64Array", 8},
}

// guardBuffers puts each buffer constructor behind a guard that checks the
// byte size before the original allocates (see guardConstructor).
func guardBuffers(rt *goja.Runtime, in *intrinsics, stop func(*Error)) error {
	global := rt.GlobalObject()
	for _, bc := range bufferConstructors {
		guarded, err := guardedBufferConstructor(rt, in, stop, bc.name, bc.elementSize)
		if err != nil {
			return err
		}
		if err := global.DefineDataProperty(bc.name, guarded, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// mentionsBuffers reports whether bundled code can reach a buffer
// constructor. Touching one makes goja build the whole typed array family
// (measured about 60 µs a call), and most modules never use one, so the
// guards are installed only when they can matter. The test is sound because
// the bundle is strict code with eval and Function disabled: the global
// object is reachable only as globalThis (esbuild rewrites a module's
// top-level this to undefined), so a module that names neither globalThis
// nor a constructor cannot obtain one, not even by a computed name.
func mentionsBuffers(code string) bool {
	if strings.Contains(code, "globalThis") {
		return true
	}
	for _, bc := range bufferConstructors {
		if strings.Contains(code, bc.name) {
			return true
		}
	}
	return false
}

func guardedBufferConstructor(rt *goja.Runtime, in *intrinsics, stop func(*Error), name string, elementSize int64) (goja.Value, error) {
	original := rt.GlobalObject().Get(name).ToObject(rt)
	return guardConstructor(rt, in, original, constructorTraps{
		construct: func(target *goja.Object, args []goja.Value, newTarget *goja.Object) *goja.Object {
			args = append([]goja.Value(nil), args...) // checkBufferBytes may convert args[0]
			if err := checkBufferBytes(name, elementSize, args); err != nil {
				stop(err)
				return rt.NewObject() // never used: the VM unwinds first
			}
			v, err := in.reflectConstruct(goja.Undefined(), target, rt.NewArray(valuesToAny(args)...), newTarget)
			if err != nil {
				panic(err)
			}
			return v.ToObject(rt)
		},
	})
}

// checkBufferBytes computes the bytes a constructor call would allocate: a
// length (ArrayBuffer converts an object to a number, once, here), or the
// length of an array-like source. A view over an existing ArrayBuffer
// allocates nothing, and another iterable is walked by JavaScript the
// interrupt reaches.
func checkBufferBytes(name string, elementSize int64, args []goja.Value) *Error {
	if len(args) == 0 {
		return nil
	}
	var count float64
	switch arg := args[0].(type) {
	case *goja.Object:
		if name == "ArrayBuffer" {
			args[0] = arg.ToNumber()
			count = args[0].ToFloat()
			break
		}
		if _, isBuffer := arg.Export().(goja.ArrayBuffer); isBuffer {
			return nil
		}
		if arg.ClassName() != "Array" {
			if _, iterable := goja.AssertFunction(arg.GetSymbol(goja.SymIterator)); iterable {
				return nil
			}
		}
		count = lengthOf(arg)
	default:
		count = arg.ToFloat()
	}
	if bytes := count * float64(elementSize); bytes > MaxHeapBytes {
		return fault(errcode.ModuleMemoryExceeded, "new %s would allocate %.0f bytes, more than the %d-byte heap ceiling", name, bytes, MaxHeapBytes)
	}
	return nil
}

func valuesToAny(values []goja.Value) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
