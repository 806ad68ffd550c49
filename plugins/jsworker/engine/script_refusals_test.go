package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestScriptReplayAskingSomethingElseIsRefused(t *testing.T) {
	p := compileModule(t, twoCalls)
	for name, rec := range map[string]Recorded{
		"another tool":  recordCall(0, "other", `{"n":1}`, `{"n":5}`),
		"another input": recordCall(0, "echo", `{"n":2}`, `{"n":5}`),
		"another kind":  {Index: 0, Kind: KindWait, SettledAt: 1},
		"a read":        {Index: 0, Kind: KindRead, InputDigest: sha256Digest([]byte(`{"n":1}`)), Output: json.RawMessage(`{}`)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runScript(t, p, `{"n":1}`, ScriptCall{Record: []Recorded{rec}})
			if e := wantCode(t, err, errcode.ScriptNondeterministic); !strings.Contains(e.Message, "request 0") {
				t.Fatalf("message %q does not name the index", e.Message)
			}
		})
	}
}

func TestScriptNondeterminismCannotBeCaught(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		try { await ctx.call("mine", {}) } catch (e) { return { caught: String(e) } }
		return { caught: false };
	}`)
	_, err := runScript(t, p, `{}`, ScriptCall{Record: []Recorded{recordCall(0, "theirs", `{}`, `{}`)}})
	wantCode(t, err, errcode.ScriptNondeterministic)
}

func TestScriptFinishingWithUnusedRecordIsRefused(t *testing.T) {
	p := compileModule(t, twoCalls)
	record := []Recorded{
		recordCall(0, "echo", `{"n":1}`, `{"n":1}`),
		recordCall(1, "echo", `{"n":2}`, `{"n":2}`),
		recordCall(4, "echo", `{"n":3}`, `{"n":3}`),
	}
	_, err := runScript(t, p, `{"n":1}`, ScriptCall{Record: record})
	if e := wantCode(t, err, errcode.ScriptNondeterministic); !strings.Contains(e.Message, "request 4") {
		t.Fatalf("message %q does not name the unused index", e.Message)
	}
}

func TestScriptMaxCallsExceeded(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		try { await Promise.all([ctx.call("a", {}), ctx.call("b", {}), ctx.call("c", {})]) } catch (e) { return { caught: String(e) } }
		return {};
	}`)
	_, err := runScript(t, p, `{}`, ScriptCall{MaxCalls: 2})
	wantCode(t, err, errcode.ScriptMaxCallsExceeded)

	res, err := runScript(t, p, `{}`, ScriptCall{MaxCalls: 3})
	if err != nil || len(res.Suspended) != 3 {
		t.Fatalf("at max_calls 3: %+v, %v", res, err)
	}

	// The bound is on the whole run, replays included.
	seq := compileModule(t, `export default async function (input, ctx) {
		for (let i = 0; i < 4; i++) await ctx.call("t", { i });
		return {};
	}`)
	_, invocations, err := drive(t, seq, `{}`, 3, echo)
	wantCode(t, err, errcode.ScriptMaxCallsExceeded)
	if invocations != 4 {
		t.Fatalf("failed at invocation %d, want 4", invocations)
	}
}

func TestScriptMaxCallsMustBeInRange(t *testing.T) {
	p := compileModule(t, twoCalls)
	for _, n := range []int{-1, 0, MaxScriptCalls + 1} {
		_, err := RunScript(context.Background(), p, Call{Input: []byte(`{}`), Clock: testClock}, ScriptCall{MaxCalls: n})
		wantCode(t, err, errcode.ScriptMaxCallsInvalid)
	}
	_, err := RunScript(context.Background(), p, Call{Input: []byte(`{"n":1}`), Clock: testClock}, ScriptCall{MaxCalls: MaxScriptCalls})
	if err != nil {
		t.Fatalf("max_calls %d refused: %v", MaxScriptCalls, err)
	}
}

func TestScriptMalformedRecordIsRefused(t *testing.T) {
	p := compileModule(t, twoCalls)
	digest := sha256Digest([]byte(`{"n":1}`))
	for name, rec := range map[string][]Recorded{
		"duplicate index":      {recordCall(0, "echo", `{"n":1}`, `{}`), recordCall(0, "echo", `{"n":1}`, `{}`)},
		"negative index":       {recordCall(-1, "echo", `{"n":1}`, `{}`)},
		"unknown kind":         {{Index: 0, Kind: "sleep", SettledAt: 1}},
		"call without tool":    {{Index: 0, Kind: KindCall, InputDigest: digest, Output: json.RawMessage(`{}`)}},
		"call without digest":  {{Index: 0, Kind: KindCall, Tool: "echo", Output: json.RawMessage(`{}`)}},
		"neither":              {{Index: 0, Kind: KindCall, Tool: "echo", InputDigest: digest}},
		"both":                 {{Index: 0, Kind: KindCall, Tool: "echo", InputDigest: digest, Output: json.RawMessage(`{}`), Error: &RecordedError{Code: "x"}}},
		"error without code":   {{Index: 0, Kind: KindCall, Tool: "echo", InputDigest: digest, Error: &RecordedError{Message: "x"}}},
		"wait without settled": {{Index: 0, Kind: KindWait}},
		"wait with output":     {{Index: 0, Kind: KindWait, SettledAt: 1, Output: json.RawMessage(`{}`)}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runScript(t, p, `{"n":1}`, ScriptCall{Record: rec})
			wantCode(t, err, errcode.ScriptRecordInvalid)
		})
	}
}

func TestScriptRecordedOutputIsDecodedSafely(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) { return { r: await ctx.call("t", {}) } }`)
	rec := recordCall(0, "t", `{}`, `{"id":12345678901234567890}`)
	_, err := runScript(t, p, `{}`, ScriptCall{Record: []Recorded{rec}})
	if e := wantCode(t, err, errcode.ModuleInputUnsafeInteger); !strings.Contains(e.Message, "recorded output of request 0") {
		t.Fatalf("message %q does not name the request", e.Message)
	}
	rec = recordCall(0, "t", `{}`, `{"a":`)
	_, err = runScript(t, p, `{}`, ScriptCall{Record: []Recorded{rec}})
	wantCode(t, err, errcode.ModuleInputInvalid)

	rec = recordCall(0, "t", `{}`, `null`)
	res, err := runScript(t, p, `{}`, ScriptCall{Record: []Recorded{rec}})
	wantScriptOutput(t, res, err, `{"r":null}`)
}

func TestScriptSettlesAsAModule(t *testing.T) {
	for name, tc := range map[string]struct{ body, code string }{
		"pending without a request": {`return new Promise(() => {})`, "module_promise_pending"},
		"rejected":                  {`await null; throw new Error("late")`, "module_threw"},
		"not an object":             {`return [1]`, "module_output_invalid"},
		// Past one answer (4 MiB) an output comes in parts; past
		// MaxScriptOutputBytes it is refused.
		"too large":            {`const s = "x".repeat(1 << 20); return { a: Array(25).fill(s) }`, "module_output_too_large"},
		"runaway jobs":         {`for (;;) Promise.resolve().then(() => {})`, "module_jobs_exceeded"},
		"runaway inline reads": {`const all = []; for (;;) all.push(ctx.read(1).then(v => v))`, "module_jobs_exceeded"},
	} {
		t.Run(name, func(t *testing.T) {
			p := compileModule(t, `export default async function (input, ctx) { `+tc.body+` }`)
			_, err := runScript(t, p, `{}`, ScriptCall{}, func(c *Call) { c.Timeout = MaxTimeout })
			wantCode(t, err, errcode.Code(tc.code))
		})
	}
}

func TestScriptCallInputIsBounded(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		try { ctx.call("t", { s: "x".repeat(5 * 1024 * 1024) }) } catch (e) { return { threw: e instanceof TypeError, message: e.message } }
		return {};
	}`)
	res, err := runScript(t, p, `{}`, ScriptCall{}, func(c *Call) { c.Timeout = 8 * time.Second })
	if err != nil || !strings.Contains(string(res.Output), `"threw":true`) || !strings.Contains(string(res.Output), "larger than") {
		t.Fatalf("output %s, %v", res.Output, err)
	}
}

func TestScriptLongSequenceReplaysWithinTheJobCeiling(t *testing.T) {
	// A replay re-runs every await before it; awaited one by one they never
	// queue more than one job at a time, however many there are.
	const n = 6000
	p := compileModule(t, `export default async function (input, ctx) {
		let sum = 0;
		for (let i = 0; i < input.n; i++) sum += (await ctx.call("t", { i })).i;
		return { sum };
	}`)
	record := make([]Recorded, n)
	for i := range record {
		in := `{"i":` + itoa(i) + `}`
		record[i] = recordCall(i, "t", in, in)
	}
	res, err := runScript(t, p, `{"n":`+itoa(n)+`}`, ScriptCall{Record: record, MaxCalls: n}, func(c *Call) { c.Timeout = 20 * time.Second })
	wantScriptOutput(t, res, err, `{"sum":`+itoa(n*(n-1)/2)+`}`)
}

func TestRunScriptNilProgram(t *testing.T) {
	if _, err := RunScript(context.Background(), nil, Call{}, ScriptCall{MaxCalls: 1}); err != ErrNilProgram {
		t.Fatalf("got %v, want ErrNilProgram", err)
	}
}

func TestScriptWalksALongInlineList(t *testing.T) {
	// The spec's pattern: for (const item of items) await ctx.read(item),
	// over an inline list longer than the job ceiling alone allows.
	const n = 30000
	p := compileModule(t, `export default async function (input, ctx) {
		let count = 0;
		for (const item of input.items) count += (await ctx.read(item)) + 1;
		return { count };
	}`)
	input := `{"items":[0` + strings.Repeat(",0", n-1) + `]}`
	res, err := runScript(t, p, input, ScriptCall{MaxCalls: 1}, func(c *Call) { c.Timeout = 8 * time.Second })
	wantScriptOutput(t, res, err, `{"count":`+itoa(n)+`}`)
}
