package engine

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// The hostile-module contract: each module is refused or stopped with its
// code, quickly, and the process lives on.

// quick bounds a call that should fail without waiting for a limit.
const quick = 3 * time.Second

func TestHostileNodeBuiltin(t *testing.T) {
	_, err := NewCache(0).Bundle(closure("main.mjs", map[string]string{
		"main.mjs": `import fs from "node:fs"; export default () => ({ x: fs.readFileSync("/etc/passwd", "utf8") })`,
	}))
	wantCode(t, err, errcode.ModuleImportBuiltin)
}

func TestHostileBareSpecifier(t *testing.T) {
	_, err := NewCache(0).Bundle(closure("main.mjs", map[string]string{
		"main.mjs": `import axios from "axios"; export default async () => ({ x: await axios.get("https://example.com") })`,
	}))
	wantCode(t, err, errcode.ModuleImportBare)
}

func TestHostileEscape(t *testing.T) {
	_, err := NewCache(0).Bundle(closure("main.mjs", map[string]string{
		"main.mjs": `import secret from "../outside.mjs"; export default () => ({ secret })`,
	}))
	wantCode(t, err, errcode.ModuleImportEscape)
}

func TestHostileInfiniteLoop(t *testing.T) {
	p := compileModule(t, `export default function () { while (true) {} }`)
	start := time.Now()
	_, err := call(t, p, `{}`, MinTimeout+quick, func(c *Call) { c.Timeout = MinTimeout })
	e := wantCode(t, err, errcode.ModuleTimeout)
	if !e.Discard {
		t.Error("a timeout does not ask to discard the process")
	}
	if took := time.Since(start); took < MinTimeout {
		t.Errorf("stopped after %v, before the %v timeout", took, MinTimeout)
	}
}

func TestHostileDefaultTimeout(t *testing.T) {
	p := compileModule(t, `export default function () { for (;;) {} }`)
	start := time.Now()
	_, err := call(t, p, `{}`, DefaultTimeout+quick)
	wantCode(t, err, errcode.ModuleTimeout)
	if took := time.Since(start); took < DefaultTimeout {
		t.Errorf("stopped after %v, before the default %v", took, DefaultTimeout)
	}
}

func TestHostileGigabyteAllocations(t *testing.T) {
	for _, alloc := range []string{
		`"x".repeat(2 ** 30)`,
		`"x".repeat(2 ** 40)`,
		`"é".padStart(2 ** 30)`,
		`"x".padEnd(2 ** 31, "ab")`,
		`new Array(1e9).fill(0)`,
		`Array.from({ length: 1e9 })`,
		`Array.prototype.join.call({ length: 1e9 }, "xxxx")`,
		`new ArrayBuffer(2 ** 30)`,
		`new ArrayBuffer(2 ** 40)`,
		`new Float64Array(2 ** 30)`,
		`new Uint8Array({ length: 2 ** 40 })`,
		`Uint8Array.from({ length: 2 ** 40 })`,
		`new (new Int32Array(1).constructor)(2 ** 30)`,
		`new (class extends Uint16Array {})(2 ** 30)`,
		`Reflect.construct(BigInt64Array, [2 ** 30])`,
	} {
		t.Run(alloc, func(t *testing.T) {
			p := compileModule(t, `export default function () { let caught; try { const x = `+alloc+`; return { n: x.length } } catch (e) { caught = String(e) } return { caught } }`)
			_, err := call(t, p, `{}`, quick)
			e := wantCode(t, err, errcode.ModuleMemoryExceeded)
			if !e.Discard {
				t.Error("a memory fault does not ask to discard the process")
			}
		})
	}
}

func TestHostileGrowingHeap(t *testing.T) {
	p := compileModule(t, `export default function () { const keep = []; for (let i = 0; ; i++) keep.push({ i, s: "item " + i }) }`)
	_, err := call(t, p, `{}`, 10*time.Second, func(c *Call) { c.Timeout = 8 * time.Second })
	wantCode(t, err, errcode.ModuleMemoryExceeded)
}

func TestHostileConsole(t *testing.T) {
	p := compileModule(t, `export default function () { console.log("x"); return {} }`)
	_, err := call(t, p, `{}`, quick)
	e := wantCode(t, err, errcode.ModuleThrew)
	if !strings.Contains(e.Message, "ReferenceError: console is not defined") {
		t.Fatalf("message %q does not carry the JavaScript error", e.Message)
	}
}

func TestHostileHostGlobalsAreAbsent(t *testing.T) {
	p := compileModule(t, `export default function () {
		const names = ["console", "require", "process", "setTimeout", "setInterval", "setImmediate", "queueMicrotask",
			"fetch", "XMLHttpRequest", "WebSocket", "Buffer", "global", "window", "self", "Deno", "Bun", "GoError",
			"module", "exports", "__dirname", "__filename", "structuredClone", "performance", "crypto", "Intl"];
		return { present: names.filter((n) => typeof globalThis[n] !== "undefined") }
	}`)
	res, err := call(t, p, `{}`, quick)
	wantOutput(t, res, err, `{"present":[]}`)
}

func TestHostileCodeGeneration(t *testing.T) {
	for _, code := range []string{
		`eval("1 + 1")`,
		`(0, eval)("1 + 1")`,
		`Function("return 1")()`,
		`new Function("return 1")()`,
		`(function () {}).constructor("return 1")()`,
		`(async function () {}).constructor("return 1")()`,
		`(function* () {}).constructor("yield 1")().next()`,
		`Object.getPrototypeOf(async () => {}).constructor("return 1")`,
	} {
		t.Run(code, func(t *testing.T) {
			p := compileModule(t, `export default function () { return { v: `+code+` } }`)
			_, err := call(t, p, `{}`, quick)
			e := wantCode(t, err, errcode.ModuleThrew)
			if !strings.Contains(e.Message, "EvalError") {
				t.Fatalf("message %q is not an EvalError", e.Message)
			}
		})
	}
}

func TestHostileFunctionStillWorksAsAType(t *testing.T) {
	p := compileModule(t, `export default function () {
		const f = () => 1;
		return { a: f instanceof Function, b: f.constructor === Function, c: typeof Function, d: Function.prototype.call === f.call,
			e: new Uint8Array(2) instanceof Uint8Array, g: new (class X extends Uint8Array {})(3).length }
	}`)
	res, err := call(t, p, `{}`, quick)
	wantOutput(t, res, err, `{"a":true,"b":true,"c":"function","d":true,"e":true,"g":3}`)
}

func TestHostileThrow(t *testing.T) {
	p := compileModule(t, `export default function () { throw new TypeError("bad input: " + "x".repeat(10000)) }`)
	_, err := call(t, p, `{}`, quick)
	e := wantCode(t, err, errcode.ModuleThrew)
	if !strings.HasPrefix(e.Message, "TypeError: bad input: xxx") {
		t.Fatalf("message %.60q does not carry the JavaScript error", e.Message)
	}
	if len(e.Message) > MaxMessageBytes {
		t.Fatalf("message is %d bytes, more than %d", len(e.Message), MaxMessageBytes)
	}
	if e.Discard {
		t.Fatal("a thrown error asks to discard the process")
	}
}

func TestHostileThrowsNonErrors(t *testing.T) {
	for code, want := range map[string]string{
		`throw 42`: "42",
		`throw { toString() { return "custom" } }`:   "custom",
		`throw { toString() { throw new Error() } }`: "toString failed",
		`throw undefined`: "undefined",
	} {
		p := compileModule(t, `export default function () { `+code+` }`)
		_, err := call(t, p, `{}`, quick)
		if e := wantCode(t, err, errcode.ModuleThrew); !strings.Contains(e.Message, want) {
			t.Errorf("%s: message %q, want it to contain %q", code, e.Message, want)
		}
	}
}

func TestHostileNonObjectOutputs(t *testing.T) {
	for _, v := range []string{`undefined`, `null`, `42`, `"text"`, `true`, `[1, 2]`, `() => 1`, `new Date(0)`,
		`new Map()`, `new (class K {})()`, `Object.create({ inherited: 1 })`, `Symbol("s")`, `10n`, `new Promise((r) => r(7))`,
		`{ toJSON() { return 5 } }`} {
		t.Run(v, func(t *testing.T) {
			p := compileModule(t, `export default function () { return `+v+` }`)
			_, err := call(t, p, `{}`, quick)
			wantCode(t, err, errcode.ModuleOutputInvalid)
		})
	}
}

func TestHostileUnserialisableOutputs(t *testing.T) {
	for _, v := range []string{`(() => { const o = {}; o.self = o; return o })()`, `{ big: 10n }`, `{ deep: [[[1n]]] }`} {
		p := compileModule(t, `export default function () { return `+v+` }`)
		_, err := call(t, p, `{}`, quick)
		wantCode(t, err, errcode.ModuleOutputInvalid)
	}
}

func TestHostileOversizedInput(t *testing.T) {
	p := compileModule(t, `export default function (input) { return { n: input.s.length } }`)
	input := `{"s":"` + strings.Repeat("x", MaxInputBytes) + `"}`
	_, err := call(t, p, input, quick)
	wantCode(t, err, errcode.ModuleInputTooLarge)

	fits := `{"s":"` + strings.Repeat("x", MaxInputBytes-8) + `"}`
	res, err := call(t, p, fits, quick)
	wantOutput(t, res, err, `{"n":4194296}`)
}

func TestHostileOversizedOutput(t *testing.T) {
	for name, body := range map[string]string{
		"one string":       `return { s: "x".repeat(5 * 1024 * 1024) }`,
		"shared reference": `const s = "x".repeat(1 << 20); return { a: new Array(64).fill(s) }`,
		"sparse array":     `const a = []; a.length = 2 ** 32 - 1; return { a }`,
		"many keys":        `const o = {}; for (let i = 0; i < 200000; i++) o["key-of-some-length-" + i] = i; return o`,
	} {
		t.Run(name, func(t *testing.T) {
			p := compileModule(t, `export default function () { `+body+` }`)
			_, err := call(t, p, `{}`, 10*time.Second, func(c *Call) { c.Timeout = 8 * time.Second })
			wantCode(t, err, errcode.ModuleOutputTooLarge)
		})
	}
}

func TestHostileStackOverflow(t *testing.T) {
	p := compileModule(t, `export default function () { const f = (n) => f(n + 1) + 1; return { v: f(0) } }`)
	_, err := call(t, p, `{}`, quick)
	wantCode(t, err, errcode.ModuleStackExceeded)

	deep := compileModule(t, `export default function () { const f = (n) => n === 0 ? 0 : f(n - 1) + 1; return { v: f(5000) } }`)
	res, err := call(t, deep, `{}`, quick)
	wantOutput(t, res, err, `{"v":5000}`)
}

func TestHostileJSONParseNesting(t *testing.T) {
	p := compileModule(t, `export default function () { return { v: JSON.parse("[".repeat(1e6) + "]".repeat(1e6)) } }`)
	_, err := call(t, p, `{}`, quick)
	wantCode(t, err, errcode.ModuleStackExceeded)
}

// The job bound is on jobs queued at once, not jobs run: a module awaiting
// in sequence holds one job at a time and completes however many times it
// awaits; one that queues jobs faster than they run is refused.
func TestHostilePromiseJobs(t *testing.T) {
	for name, src := range map[string]string{
		"await fan-out": `export default async function () { await Promise.all(Array.from({ length: 10000 }, async (_, i) => i)); return {} }`,
		"then per item": `export default function () { for (let i = 0; i < 1e6; i++) Promise.resolve(i).then(() => {}); return {} }`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := call(t, compileModule(t, src), `{}`, quick)
			wantCode(t, err, errcode.ModuleJobsExceeded)
		})
	}

	// An endless await loop never queues more than one job: the wall time
	// ends it.
	p := compileModule(t, `export default async function () { for (;;) await null }`)
	_, err := call(t, p, `{}`, MinTimeout+quick, func(c *Call) { c.Timeout = MinTimeout })
	wantCode(t, err, errcode.ModuleTimeout)

	for _, n := range []string{"5000", "100000"} {
		seq := compileModule(t, `export default async function () { let n = 0; for (let i = 0; i < `+n+`; i++) n += await 1; return { n } }`)
		res, err := call(t, seq, `{}`, quick)
		wantOutput(t, res, err, `{"n":`+n+`}`)
	}
	// A chain built at once holds its promises, not queued jobs, and a
	// .catch whose handler never runs leaves nothing queued.
	chain := compileModule(t, `export default function () { let p = Promise.resolve(0); for (let i = 0; i < 5000; i++) p = p.then(v => v + 1); return p.then(n => ({ n })) }`)
	res, err := call(t, chain, `{}`, quick)
	wantOutput(t, res, err, `{"n":5000}`)
	caught := compileModule(t, `export default async function () { let n = 0; for (let i = 0; i < 20000; i++) n += await Promise.resolve(1).catch(() => 0); return { n } }`)
	res, err = call(t, caught, `{}`, quick)
	wantOutput(t, res, err, `{"n":20000}`)
}

func TestHostilePromiseNeverSettles(t *testing.T) {
	p := compileModule(t, `export default function () { return new Promise(() => {}) }`)
	_, err := call(t, p, `{}`, quick)
	wantCode(t, err, errcode.ModulePromisePending)
}

func TestHostileRejection(t *testing.T) {
	p := compileModule(t, `export default async function () { await null; throw new RangeError("late") }`)
	_, err := call(t, p, `{}`, quick)
	if e := wantCode(t, err, errcode.ModuleThrew); !strings.Contains(e.Message, "RangeError: late") {
		t.Fatalf("message %q does not carry the rejection", e.Message)
	}
}

func TestHostileCancellation(t *testing.T) {
	p := compileModule(t, `export default function () { for (;;) {} }`)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, p, Call{Input: []byte(`{}`), Clock: testClock, Timeout: MaxTimeout})
	wantCode(t, err, errcode.ModuleCancelled)
	if took := time.Since(start); took > quick {
		t.Fatalf("cancellation took %v", took)
	}

	_, err = Run(ctx, p, Call{Input: []byte(`{}`), Clock: testClock})
	wantCode(t, err, errcode.ModuleCancelled)
}

// A builtin walking a huge array-like in Go ignores interrupts; Run must
// still answer at the deadline, and ask for the process to be discarded.
func TestHostileStuckBuiltin(t *testing.T) {
	before := runtime.NumGoroutine()
	p := compileModule(t, `export default function () { return { i: Array.prototype.indexOf.call({ length: 3e7 }, 1) } }`)
	start := time.Now()
	_, err := call(t, p, `{}`, MinTimeout+quick, func(c *Call) { c.Timeout = MinTimeout })
	e := wantCode(t, err, errcode.ModuleTimeout)
	if !e.Discard || !strings.Contains(e.Message, "did not stop") {
		t.Fatalf("a VM that would not stop was not reported for discarding: %+v", e)
	}
	t.Logf("answered after %v", time.Since(start))
	// Let the abandoned goroutine finish so it does not slow later tests.
	for deadline := time.Now().Add(2 * time.Minute); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
}

func TestHostileCrashIsRecovered(t *testing.T) {
	p := compileModule(t, `export default function () { boom(); return {} }`)
	inv := newInvocation(p, Call{Input: []byte(`{}`), Clock: testClock})
	// Stand in for a bug in goja: a Go panic raised inside the VM.
	if err := inv.rt.Set("boom", func() { panic("index out of range in the engine") }); err != nil {
		t.Fatal(err)
	}
	_, err := supervise(context.Background(), inv, DefaultTimeout)
	e := wantCode(t, err, errcode.ModuleCrashed)
	if !e.Discard || !strings.Contains(e.Message, "index out of range in the engine") {
		t.Fatalf("crash not reported for discarding with its cause: %+v", e)
	}
}
