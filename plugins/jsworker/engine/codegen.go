package engine

import (
	"github.com/dop251/goja"
)

// codeGenerationMessage is what eval and the Function constructors throw.
const codeGenerationMessage = "code generation from strings is not allowed in deterministic modules"

// functionConstructorsProgram yields the AsyncFunction and GeneratorFunction
// constructors, which ECMAScript reaches only through an instance's
// .constructor. It is compiled once per process; each call only runs it.
var functionConstructorsProgram = goja.MustCompile("runx:intrinsics",
	"[(async function () {}).constructor, (function* () {}).constructor]", true)

// disableCodeGeneration removes every way to parse a string as code at run
// time: eval, Function, AsyncFunction and GeneratorFunction. Two reasons.
// The package source is the only JavaScript the boundary admits, checked by
// Bundle; and goja's parser recurses on the Go stack, so a string of a
// million nested parentheses handed to eval would overflow it, which Go
// cannot recover from. (Cloudflare Workers and CSP without 'unsafe-eval'
// draw the same line.)
func disableCodeGeneration(rt *goja.Runtime, in *intrinsics) error {
	evalError := rt.Get("EvalError")
	thrower := func(goja.FunctionCall) goja.Value {
		err, _ := rt.New(evalError, rt.ToValue(codeGenerationMessage))
		panic(err)
	}
	throw := func() { thrower(goja.FunctionCall{}) }
	global := rt.GlobalObject()
	if err := global.DefineDataProperty("eval", rt.ToValue(thrower), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}

	// Function stays a working constructor for instanceof and prototype
	// lookups; only calling or constructing it is refused.
	refused := constructorTraps{
		apply: func(*goja.Object, goja.Value, []goja.Value) goja.Value {
			throw()
			return nil
		},
		construct: func(*goja.Object, []goja.Value, *goja.Object) *goja.Object {
			throw()
			return nil
		},
	}
	guarded, err := guardConstructor(rt, in, rt.Get("Function").ToObject(rt), refused)
	if err != nil {
		return err
	}
	if err := global.DefineDataProperty("Function", guarded, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}

	ctors, err := rt.RunProgram(functionConstructorsProgram)
	if err != nil {
		return err
	}
	list := ctors.ToObject(rt)
	for _, index := range []string{"0", "1"} {
		if err := replaceConstructor(list.Get(index).ToObject(rt), rt.ToValue(thrower)); err != nil {
			return err
		}
	}
	return nil
}
