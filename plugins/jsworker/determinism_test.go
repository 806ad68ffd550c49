package jsworker

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
)

const clockModule = `export default function (input) {
	return { now: Date.now(), iso: new Date().toISOString(), called: Date(), year: new Date().getUTCFullYear(),
		r: [Math.random(), Math.random(), Math.random()], n: input.n };
}`

// runModule calls js.module over gRPC under one run's context.
func runModule(t *testing.T, c *plugintest.Conn, pc plugin.Context, module, input string) string {
	t.Helper()
	res := c.Invoke(Capability, pc, Request{Entry: "main.mjs", Files: map[string]string{"main.mjs": module}, Input: json.RawMessage(input)})
	if res.Status != plugin.StatusOK {
		t.Fatalf("%s %s: %s", res.Status, res.Code, res.Message)
	}
	return string(res.Output)
}

// Issue 10 item 6: a live run's module reads no clock and no randomness of
// its run or host: two runs with different ids and clocks,
// in two worker processes, give byte-identical output for one input.
func TestModuleOutputIsTheSameOnEveryRun(t *testing.T) {
	first, second := plugintest.Serve(t, New()), plugintest.Serve(t, New())
	a := runModule(t, first, plugin.Context{RunID: "run-a", CallID: "a", Clock: time.Now()}, clockModule, `{"n":1}`)
	b := runModule(t, second, plugin.Context{RunID: "run-b", CallID: "b", Clock: time.Now().Add(97 * time.Hour)}, clockModule, `{ "n" : 1 }`)
	if a != b {
		t.Fatalf("one input gave two outputs:\n%s\n%s", a, b)
	}
	// Date is the Unix epoch, whichever way it is read.
	for _, want := range []string{`"now":0`, `"iso":"1970-01-01T00:00:00.000Z"`, `"year":1970`, `"called":"Thu Jan 01 1970`} {
		if !strings.Contains(a, want) {
			t.Errorf("output %s lacks %s", a, want)
		}
	}
	// No clock at all in the context is no refusal for a module.
	if c := runModule(t, first, plugin.Context{CallID: "c"}, clockModule, `{"n":1}`); c != a {
		t.Fatalf("without a run clock: %s", c)
	}
}

// Math.random is seeded from the closure and the input: another input or
// another closure draws another sequence; the seed is pinned by a golden.
func TestRandomIsSeededFromClosureAndInput(t *testing.T) {
	c := plugintest.Serve(t, New())
	pc := plugin.Context{CallID: "r"}
	random := func(module, input string) string {
		var out struct{ R []float64 }
		if err := json.Unmarshal([]byte(runModule(t, c, pc, module, input)), &out); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(out.R)
		return string(b)
	}
	base := random(clockModule, `{"n":1}`)
	if other := random(clockModule, `{"n":2}`); other == base {
		t.Fatal("two inputs drew one sequence")
	}
	if other := random(clockModule+"\n// another closure\n", `{"n":1}`); other == base {
		t.Fatal("two closures drew one sequence")
	}
	if again := random(clockModule, `{"n":1}`); again != base {
		t.Fatalf("one closure and input drew two sequences: %s, %s", base, again)
	}
	// The derivation is part of the determinism contract.
	seed, err := Seed("sha256:"+strings.Repeat("0", 64), []byte(`{"b":1, "a":2}`))
	if err != nil {
		t.Fatal(err)
	}
	same, _ := Seed("sha256:"+strings.Repeat("0", 64), []byte(`{"a":2,"b":1}`))
	if seed != same {
		t.Fatal("the seed depends on the input's formatting, not its canonical form")
	}
	if seed != goldenSeed {
		t.Fatalf("seed %d, want %d: a change to the derivation must be deliberate", seed, goldenSeed)
	}
}

// No bundler shim is visible: require, module and exports do not exist.
func TestNoRequireShim(t *testing.T) {
	c := plugintest.Serve(t, New())
	out := runModule(t, c, plugin.Context{CallID: "q"}, `export default function () {
		return { require: typeof require, module: typeof module, exports: typeof exports, global: typeof global, process: typeof process };
	}`, `{}`)
	if out != `{"require":"undefined","module":"undefined","exports":"undefined","global":"undefined","process":"undefined"}` {
		t.Fatalf("got %s", out)
	}
}

// A field the worker would not carry out is refused, not ignored: the
// kernel's old Math.random seed is one (Math.random is seeded from the
// closure and input), as is any field a newer kernel might send.
func TestUnknownRequestFieldsAreRefused(t *testing.T) {
	c := plugintest.Serve(t, New())
	for _, capability := range []string{Capability, ScriptCapability} {
		input := `{"entry":"main.mjs","files":{"main.mjs":"export default function () { return {} }"},"input":{},"max_calls":1,"seed":7}`
		if capability == Capability {
			input = `{"entry":"main.mjs","files":{"main.mjs":"export default function () { return {} }"},"input":{},"seed":7}`
		}
		res := c.Invoke(capability, plugin.Context{CallID: "u-" + capability}, []byte(input))
		if res.Status != plugin.StatusRefused || res.Code != "module_request_invalid" || !strings.Contains(res.Message, "seed") {
			t.Fatalf("%s with a seed: %s %s %q, want refused module_request_invalid naming seed", capability, res.Status, res.Code, res.Message)
		}
	}
}
