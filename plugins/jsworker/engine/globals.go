package engine

import (
	"math/rand/v2"
	"sort"
	"time"

	"github.com/dop251/goja"
)

// intrinsics are values captured from a fresh runtime before any module code
// runs, so a module that overwrites Object or Promise cannot change how the
// engine reads its answer.
type intrinsics struct {
	objectPrototype  *goja.Object
	freeze           goja.Callable
	promiseResolve   goja.Callable
	promiseCtor      goja.Value
	reflectConstruct goja.Callable
	reflectGet       goja.Callable
	// errorCtor builds the Error a script's failed request rejects with.
	errorCtor goja.Value
}

// setupRuntime makes a fresh runtime into the one a call gets: ECMAScript, a
// fixed clock, a seeded Math.random, a bounded stack, the guarded builtins
// and the frozen Runx global. Everything is installed with Go builders; no
// JavaScript is parsed here. The part that does not depend on the call is
// prepareRuntime's, which may have run ahead of the call (spare.go).
func setupRuntime(b *prepared, call *Call, prog *Program, stop func(*Error)) (*intrinsics, error) {
	b.stop = stop
	clock := call.Clock
	b.rt.SetTimeSource(func() time.Time { return clock })
	b.rt.SetRandSource(seededRandom(call.Seed))
	if prog.usesBuffers {
		if err := guardBuffers(b.rt, b.in, b.enforce); err != nil {
			return nil, err
		}
	}
	return b.in, nil
}

// prepareRuntime installs in rt what every call's runtime has, whatever the
// call: the bounded stack, the captured intrinsics, the refusal of code
// generation, the guarded builtins but the buffers', and Runx. A guard that
// hits a limit reports it through b.enforce to the call setupRuntime names.
func prepareRuntime(rt *goja.Runtime) (*prepared, error) {
	rt.SetMaxCallStackSize(MaxCallDepth)
	in, err := captureIntrinsics(rt)
	if err != nil {
		return nil, err
	}
	b := &prepared{rt: rt, in: in}
	global := rt.GlobalObject()
	// GoError is a goja extension, not ECMAScript; a module has no Go to talk to.
	if err := global.Delete("GoError"); err != nil {
		return nil, err
	}
	if err := disableCodeGeneration(rt, in); err != nil {
		return nil, err
	}
	if err := installGuards(rt, b.enforce); err != nil {
		return nil, err
	}
	if err := installRunx(rt, in); err != nil {
		return nil, err
	}
	return b, nil
}

func captureIntrinsics(rt *goja.Runtime) (*intrinsics, error) {
	in := &intrinsics{objectPrototype: rt.NewObject().Prototype()}
	var err error
	if in.freeze, err = method(rt, "Object", "freeze"); err != nil {
		return nil, err
	}
	if in.promiseResolve, err = method(rt, "Promise", "resolve"); err != nil {
		return nil, err
	}
	in.promiseCtor = rt.Get("Promise")
	in.errorCtor = rt.Get("Error")
	if in.reflectConstruct, err = method(rt, "Reflect", "construct"); err != nil {
		return nil, err
	}
	if in.reflectGet, err = method(rt, "Reflect", "get"); err != nil {
		return nil, err
	}
	return in, nil
}

// seededRandom is Math.random for a seed: PCG, whose output math/rand/v2
// fixes, mapped to [0, 1) by a formula fixed here, so one seed gives one
// sequence on every host and every Go release.
func seededRandom(seed int64) goja.RandSource {
	pcg := rand.NewPCG(uint64(seed), 0x72756e78) // "runx"
	return func() float64 { return float64(pcg.Uint64()>>11) / (1 << 53) }
}

// method fetches a builtin's function, e.g. Object.freeze.
func method(rt *goja.Runtime, object, name string) (goja.Callable, error) {
	fn, ok := goja.AssertFunction(rt.Get(object).ToObject(rt).Get(name))
	if !ok {
		return nil, errMissingBuiltin(object + "." + name)
	}
	return fn, nil
}

type errMissingBuiltin string

func (e errMissingBuiltin) Error() string { return "engine: goja has no " + string(e) }

// installRunx defines the one host helper object. The binding is read-only
// and the object frozen, so a module can neither replace nor extend it.
func installRunx(rt *goja.Runtime, in *intrinsics) error {
	runx := rt.NewObject()
	parse := func(call goja.FunctionCall) goja.Value {
		arg := call.Argument(0)
		if _, isString := arg.Export().(string); !isString {
			panic(rt.NewTypeError("Runx.parseUrl expects a string"))
		}
		u, err := ParseURL(arg.String())
		if err != nil {
			panic(rt.NewTypeError("Invalid URL: " + err.Error()))
		}
		out := rt.NewObject()
		_ = out.Set("href", u.Href)
		_ = out.Set("origin", u.Origin)
		_ = out.Set("protocol", u.Protocol)
		_ = out.Set("hostname", u.Hostname)
		return out
	}
	if err := runx.DefineDataProperty("parseUrl", rt.ToValue(parse), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		return err
	}
	if _, err := in.freeze(goja.Undefined(), runx); err != nil {
		return err
	}
	return rt.GlobalObject().DefineDataProperty("Runx", runx, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// environmentObject is a module's frozen { environment } second argument.
func environmentObject(rt *goja.Runtime, in *intrinsics, env map[string]string) (*goja.Object, error) {
	values, err := frozenEnvironment(rt, in, env)
	if err != nil {
		return nil, err
	}
	ctx := rt.NewObject()
	if err := ctx.DefineDataProperty("environment", values, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		return nil, err
	}
	if _, err := in.freeze(goja.Undefined(), ctx); err != nil {
		return nil, err
	}
	return ctx, nil
}

// frozenEnvironment is exactly the declared non-secret values, in a stable
// key order, frozen.
func frozenEnvironment(rt *goja.Runtime, in *intrinsics, env map[string]string) (*goja.Object, error) {
	names := make([]string, 0, len(env))
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	values := rt.NewObject()
	for _, name := range names {
		if err := values.DefineDataProperty(name, rt.ToValue(env[name]), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return nil, err
		}
	}
	if _, err := in.freeze(goja.Undefined(), values); err != nil {
		return nil, err
	}
	return values, nil
}
