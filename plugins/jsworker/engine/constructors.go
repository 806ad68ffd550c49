package engine

import (
	"github.com/dop251/goja"
)

// constructorTraps are the call and construct behaviour of a guarded
// constructor; a nil trap passes through to the original.
type constructorTraps struct {
	apply     func(target *goja.Object, this goja.Value, args []goja.Value) goja.Value
	construct func(target *goja.Object, args []goja.Value, newTarget *goja.Object) *goja.Object
}

// guardConstructor puts ctor behind a Proxy with the given traps. A Proxy
// keeps what modules rely on: the statics, the prototype, subclassing through
// new.target, Symbol.species (a getter that returns its receiver, so it
// returns the proxy). It also points ctor.prototype.constructor at the proxy,
// so an instance's .constructor leads back to the guard, not around it.
//
// goja's instanceof does not accept a Proxy on its right-hand side (it
// throws "Expecting a function in instanceof check"), so the proxy answers
// Symbol.hasInstance itself, with the original's answer.
func guardConstructor(rt *goja.Runtime, in *intrinsics, ctor *goja.Object, traps constructorTraps) (goja.Value, error) {
	hasInstance := rt.ToValue(func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(rt.InstanceOf(call.Argument(0), ctor))
	})
	config := &goja.ProxyTrapConfig{
		Apply:     traps.apply,
		Construct: traps.construct,
		GetSym: func(target *goja.Object, sym *goja.Symbol, receiver goja.Value) goja.Value {
			if sym == goja.SymHasInstance {
				return hasInstance
			}
			v, err := in.reflectGet(goja.Undefined(), target, sym, receiver)
			if err != nil {
				panic(err)
			}
			return v
		},
	}
	guarded := rt.ToValue(rt.NewProxy(ctor, config))
	if err := replaceConstructor(ctor, guarded); err != nil {
		return nil, err
	}
	return guarded, nil
}

// replaceConstructor points ctor.prototype.constructor at replacement.
func replaceConstructor(ctor *goja.Object, replacement goja.Value) error {
	proto, ok := ctor.Get("prototype").(*goja.Object)
	if !ok {
		return errMissingBuiltin("prototype of a constructor")
	}
	return proto.DefineDataProperty("constructor", replacement, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}
