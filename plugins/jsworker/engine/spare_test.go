package engine

import (
	"runtime"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// withSpare makes sure a prepared runtime waits in the slot and returns a
// check that the next call took it, so a test knows it ran the spare path.
func withSpare(t *testing.T) func() {
	t.Helper()
	select {
	case spares.slot <- prepareSpare():
	default: // one is there already
	}
	if len(spares.slot) != 1 {
		t.Fatal("no spare runtime is ready")
	}
	before := spares.taken.Load()
	return func() {
		t.Helper()
		if spares.taken.Load() != before+1 {
			t.Fatal("the call did not take the spare runtime")
		}
	}
}

// withoutSpare empties the slot and keeps it empty until the returned
// release, so a call prepares its runtime on its own goroutine.
func withoutSpare(t *testing.T) (release func()) {
	t.Helper()
	for !spares.building.CompareAndSwap(false, true) {
		runtime.Gosched() // a builder is finishing; it holds the flag briefly
	}
	takeSpare()
	return func() { spares.building.Store(false) }
}

// A call that changes everything it can reach leaves nothing for the next
// call, which runs in a spare prepared while the first ran or after: its
// globals, the prototypes, the intrinsics, Math.random's sequence, Date and
// the guarded builtins are as a fresh runtime has them.
func TestSpareRuntimeKeepsCallsApart(t *testing.T) {
	p := compileModule(t, `
		export default function () {
			const seen = {
				leaked: typeof globalThis.leaked,
				proto: typeof Object.prototype.polluted,
				arrayProto: [].includes.name + Array.prototype.push.name,
				json: JSON.stringify.name,
				random: Math.random(),
				now: Date.now(),
				dateProto: new Date(0).toISOString(),
				repeat: "ab".repeat(2),
				freeze: Object.isFrozen(Object.freeze({})),
				then: typeof Promise.prototype.then,
				reflect: Reflect.get.name,
				error: new Error("m").message,
				symbol: typeof Symbol.prototype.polluted,
				fn: Function.prototype.call.name,
				runx: typeof Runx.parseUrl,
				defined: Object.getOwnPropertyNames(globalThis).filter((n) => n.startsWith("runxTest")).length,
			};
			globalThis.leaked = true;
			Object.defineProperty(globalThis, "runxTestHidden", { value: 1, enumerable: false });
			Object.prototype.polluted = 1;
			Symbol.prototype.polluted = 1;
			Array.prototype.push = () => 0;
			Array.prototype.includes = function other() {};
			JSON.stringify = function hijacked() {};
			for (let i = 0; i < 10; i++) Math.random();
			Math.random = () => 4;
			Date.now = () => 5;
			Date.prototype.toISOString = () => "then";
			String.prototype.repeat = () => "x";
			Object.freeze = (o) => o;
			Promise.prototype.then = 1;
			Reflect.get = function hijacked() {};
			Error.prototype.constructor = null;
			Function.prototype.call = function hijacked() {};
			try { delete globalThis.Runx } catch {}
			return seen;
		}`)
	release := withoutSpare(t)
	res, err := call(t, p, `{}`, quick)
	release()
	if err != nil {
		t.Fatal(err)
	}
	fresh := string(res.Output)
	var first string
	for i := 0; i < 3; i++ {
		took := withSpare(t)
		res, err := call(t, p, `{}`, quick)
		if err != nil {
			t.Fatal(err)
		}
		took()
		if i == 0 {
			first = string(res.Output)
			continue
		}
		if string(res.Output) != first {
			t.Fatalf("call %d saw %s, the first saw %s", i+1, res.Output, first)
		}
	}
	if first != fresh {
		t.Fatalf("a call in a spare saw %s, one in a runtime of its own %s", first, fresh)
	}
	want := `{"leaked":"undefined","proto":"undefined","arrayProto":"includespush","json":"stringify",` +
		`"random":0.6624249546612404,"now":1930367167000,"dateProto":"1970-01-01T00:00:00.000Z","repeat":"abab",` +
		`"freeze":true,"then":"function","reflect":"get","error":"m","symbol":"undefined","fn":"call","runx":"function","defined":0}`
	if first != want {
		t.Fatalf("a call saw %s, want %s", first, want)
	}
}

// The guards a spare was prepared with stop the call that takes it, and a
// program that uses buffers gets their guards too.
func TestSpareRuntimeGuardsStopTheCallThatTakesIt(t *testing.T) {
	for _, alloc := range []string{`"x".repeat(2 ** 30)`, `new ArrayBuffer(2 ** 40)`} {
		t.Run(alloc, func(t *testing.T) {
			p := compileModule(t, `export default function () { const x = `+alloc+`; return { n: x.length } }`)
			took := withSpare(t)
			_, err := call(t, p, `{}`, quick)
			wantCode(t, err, errcode.ModuleMemoryExceeded)
			took()
		})
	}
}
