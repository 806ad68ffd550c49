package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

const twoCalls = `export default async function (input, ctx) {
	const a = await ctx.call("echo", { n: input.n });
	const b = await ctx.call("echo", { n: a.n + 1 });
	return { a, b };
}`

func TestScriptFirstRunSuspendsOnIndexZero(t *testing.T) {
	p := compileModule(t, twoCalls)
	res, err := runScript(t, p, `{"n":1}`, ScriptCall{})
	wantSuspended(t, res, err, `[{"index":0,"kind":"call","tool":"echo","input":{"n":1}}]`)
}

func TestScriptReplayProceedsToTheNextIndex(t *testing.T) {
	p := compileModule(t, twoCalls)
	record := []Recorded{recordCall(0, "echo", `{"n":1}`, `{"n":5}`)}
	res, err := runScript(t, p, `{"n":1}`, ScriptCall{Record: record})
	wantSuspended(t, res, err, `[{"index":1,"kind":"call","tool":"echo","input":{"n":6}}]`)

	record = append(record, recordCall(1, "echo", `{"n":6}`, `{"n":7}`))
	res, err = runScript(t, p, `{"n":1}`, ScriptCall{Record: record})
	wantScriptOutput(t, res, err, `{"a":{"n":5},"b":{"n":7}}`)
}

func TestScriptPromiseAllSuspendsWithEvery(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		const [a, b] = await Promise.all([ctx.call("left", { x: 1 }), ctx.call("right", { x: 2 })]);
		return { a, b };
	}`)
	res, err := runScript(t, p, `{}`, ScriptCall{})
	wantSuspended(t, res, err, `[{"index":0,"kind":"call","tool":"left","input":{"x":1}},{"index":1,"kind":"call","tool":"right","input":{"x":2}}]`)

	// With one of the two recorded, the other is all it still waits on.
	res, err = runScript(t, p, `{}`, ScriptCall{Record: []Recorded{recordCall(1, "right", `{"x":2}`, `{"r":2}`)}})
	wantSuspended(t, res, err, `[{"index":0,"kind":"call","tool":"left","input":{"x":1}}]`)

	out, invocations, err := drive(t, p, `{}`, 10, echo)
	wantScriptOutput(t, out, err, `{"a":{"x":1},"b":{"x":2}}`)
	if invocations != 2 {
		t.Fatalf("took %d invocations, want 2: both calls suspend together", invocations)
	}
}

func TestScriptRecordedErrorRejectsWithCode(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		try {
			await ctx.call("github.issue", { n: 1 });
			return { caught: false };
		} catch (e) {
			return { caught: true, code: e.code, message: e.message, isError: e instanceof Error };
		}
	}`)
	rec := Recorded{Index: 0, Kind: KindCall, Tool: "github.issue", InputDigest: sha256Digest([]byte(`{"n":1}`)),
		Error: &RecordedError{Code: "not_found", Message: "no issue 1"}}
	res, err := runScript(t, p, `{}`, ScriptCall{Record: []Recorded{rec}})
	wantScriptOutput(t, res, err, `{"caught":true,"code":"not_found","message":"no issue 1","isError":true}`)

	// Uncaught, the rejection fails the script.
	uncaught := compileModule(t, `export default async function (input, ctx) { await ctx.call("github.issue", { n: 1 }); return {} }`)
	_, err = runScript(t, uncaught, `{}`, ScriptCall{Record: []Recorded{rec}})
	if e := wantCode(t, err, errcode.ModuleThrew); !strings.Contains(e.Message, "no issue 1") {
		t.Fatalf("message %q does not carry the recorded error", e.Message)
	}
}

func TestScriptRecordedErrorSurvivesAReplacedError(t *testing.T) {
	p := compileModule(t, `const RealError = Error;
	export default async function (input, ctx) {
		globalThis.Error = function Fake() {};
		try { await ctx.call("t", {}) } catch (e) { return { real: e instanceof RealError, code: e.code } }
	}`)
	rec := Recorded{Index: 0, Kind: KindCall, Tool: "t", InputDigest: sha256Digest([]byte(`{}`)), Error: &RecordedError{Code: "x", Message: "y"}}
	res, err := runScript(t, p, `{}`, ScriptCall{Record: []Recorded{rec}})
	wantScriptOutput(t, res, err, `{"real":true,"code":"x"}`)
}

func TestScriptReadOfAnInlineValueIsNoRequest(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		const seen = [];
		for (const item of input.items) seen.push(await ctx.read(item));
		const after = await ctx.call("t", { seen });
		return { seen, after };
	}`)
	// Values that look like references but are not: a non-string $ref, a
	// second member, an array. None takes an index or draws from max_calls.
	input := `{"items":[5,"s",null,{"a":1},{"$ref":1},{"$ref":"x","y":2},["$ref"]]}`
	res, err := runScript(t, p, input, ScriptCall{MaxCalls: 1})
	wantSuspended(t, res, err, `[{"index":0,"kind":"call","tool":"t","input":{"seen":[5,"s",null,{"a":1},{"$ref":1},{"$ref":"x","y":2},["$ref"]]}}]`)

	out, _, err := drive(t, p, input, 1, echo)
	if err != nil || !strings.HasPrefix(string(out.Output), `{"seen":[5,"s",null`) {
		t.Fatalf("output %s, %v", out.Output, err)
	}
}

func TestScriptReadOfAReferenceIsARequest(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		const lead = await ctx.read(input.items[0]);
		return { lead };
	}`)
	input := `{"items":[{"$ref":"artifact:sha256:abc"}]}`
	res, err := runScript(t, p, input, ScriptCall{})
	wantSuspended(t, res, err, `[{"index":0,"kind":"read","input":{"$ref":"artifact:sha256:abc"}}]`)

	rec := Recorded{Index: 0, Kind: KindRead, InputDigest: sha256Digest([]byte(`{"$ref":"artifact:sha256:abc"}`)), Output: json.RawMessage(`[1,{"name":"Ada"}]`)}
	res, err = runScript(t, p, input, ScriptCall{Record: []Recorded{rec}})
	wantScriptOutput(t, res, err, `{"lead":[1,{"name":"Ada"}]}`)

	// A read of a reference draws from max_calls.
	two := compileModule(t, `export default async function (input, ctx) {
		await ctx.read({ $ref: "a" }); await ctx.read({ $ref: "b" }); return {} }`)
	_, _, err = drive(t, two, `{}`, 1, echo)
	wantCode(t, err, errcode.ScriptMaxCallsExceeded)
}

func TestScriptWaitIsAlwaysARequest(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		const past = await ctx.wait({ until: 1 });
		const later = await ctx.wait({ until: Date.now() + 60000 });
		return { past, later };
	}`)
	// Even a wait whose until has long passed is the kernel's to settle.
	res, err := runScript(t, p, `{}`, ScriptCall{})
	wantSuspended(t, res, err, `[{"index":0,"kind":"wait","until":1}]`)

	until := testClock.UnixMilli() + 60000
	record := []Recorded{{Index: 0, Kind: KindWait, SettledAt: 1700000000000}}
	res, err = runScript(t, p, `{}`, ScriptCall{Record: record})
	wantSuspended(t, res, err, fmt.Sprintf(`[{"index":1,"kind":"wait","until":%d}]`, until))

	record = append(record, Recorded{Index: 1, Kind: KindWait, SettledAt: until + 5})
	res, err = runScript(t, p, `{}`, ScriptCall{Record: record})
	wantScriptOutput(t, res, err, fmt.Sprintf(`{"past":1700000000000,"later":%d}`, until+5))
}

func TestScriptWaitsDrawNothingFromMaxCalls(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		for (let i = 1; i <= 5; i++) await ctx.wait({ until: i });
		const r = await ctx.call("t", {});
		return { r };
	}`)
	out, invocations, err := drive(t, p, `{}`, 1, echo)
	wantScriptOutput(t, out, err, `{"r":{}}`)
	if invocations != 7 {
		t.Fatalf("took %d invocations, want 7", invocations)
	}
}

func TestScriptRequestArgumentsAreChecked(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		const errors = [];
		const attempts = [
			() => ctx.call("", {}),
			() => ctx.call(new String("t"), {}),
			() => ctx.call("t"),
			() => ctx.call("t", [1]),
			() => ctx.call("t", "text"),
			() => { const o = {}; o.self = o; return ctx.call("t", o) },
			() => ctx.call("t", { big: 1n }),
			() => ctx.wait(),
			() => ctx.wait({ until: 0 }),
			() => ctx.wait({ until: 1.5 }),
			() => ctx.wait({ until: "1" }),
			() => ctx.wait({ until: 2 ** 53 }),
		];
		for (const attempt of attempts) {
			try { attempt(); errors.push("none") } catch (e) { errors.push(e instanceof TypeError ? "TypeError" : String(e)) }
		}
		return { errors };
	}`)
	res, err := runScript(t, p, `{}`, ScriptCall{MaxCalls: 1})
	want := `{"errors":[` + strings.TrimSuffix(strings.Repeat(`"TypeError",`, 12), ",") + `]}`
	wantScriptOutput(t, res, err, want)
}

func TestScriptCallInputIsCanonical(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		const when = { toJSON() { return "2031" } };
		return await ctx.call("t", { z: 1.0, a: [1e21, "é<&\u2028", undefined, () => 1], m: { b: true, a: null }, when, skip: undefined });
	}`)
	res, err := runScript(t, p, `{}`, ScriptCall{})
	if err != nil || len(res.Suspended) != 1 {
		t.Fatalf("got %+v, %v", res, err)
	}
	want := "{\"a\":[1e+21,\"é<&\u2028\",null,null],\"m\":{\"a\":null,\"b\":true},\"when\":\"2031\",\"z\":1}"
	if got := string(res.Suspended[0].Input); got != want {
		t.Fatalf("input %s, want %s", got, want)
	}
	rec := Recorded{Index: 0, Kind: KindCall, Tool: "t", InputDigest: sha256Digest([]byte(want)), Output: json.RawMessage(`{"ok":true}`)}
	out, err := runScript(t, p, `{}`, ScriptCall{Record: []Recorded{rec}})
	wantScriptOutput(t, out, err, `{"ok":true}`)
}

func TestScriptCtxIsFrozen(t *testing.T) {
	p := compileModule(t, `export default function (input, ctx) {
		let threw = false;
		try { ctx.call = () => 1 } catch (e) { threw = e instanceof TypeError }
		return { keys: Object.keys(ctx).sort(), frozen: Object.isFrozen(ctx) && Object.isFrozen(ctx.environment), env: ctx.environment, threw };
	}`)
	res, err := runScript(t, p, `{}`, ScriptCall{}, func(c *Call) { c.Environment = map[string]string{"REGION": "eu"} })
	wantScriptOutput(t, res, err, `{"keys":["call","environment","read","wait"],"frozen":true,"env":{"REGION":"eu"},"threw":true}`)
}

func TestScriptUnawaitedRequestIsCarriedOut(t *testing.T) {
	// The script returns before its call settles. Finishing there would drop
	// the call; it suspends on it instead, and the replay finishes.
	p := compileModule(t, `export default function (input, ctx) {
		ctx.call("notify", { msg: "hi" });
		return { sent: true };
	}`)
	res, err := runScript(t, p, `{}`, ScriptCall{})
	wantSuspended(t, res, err, `[{"index":0,"kind":"call","tool":"notify","input":{"msg":"hi"}}]`)
	out, invocations, err := drive(t, p, `{}`, 1, echo)
	wantScriptOutput(t, out, err, `{"sent":true}`)
	if invocations != 2 {
		t.Fatalf("took %d invocations, want 2", invocations)
	}
}

func TestScriptDeterministicAcrossReplays(t *testing.T) {
	// Every replay must draw the same random numbers and read the same clock
	// before each request; the digest check would refuse a replay that did
	// not, so finishing at all proves it, and the output shows the values.
	p := compileModule(t, `export default async function (input, ctx) {
		const seen = [];
		for (let i = 0; i < 3; i++) {
			const r = Math.random(), now = Date.now();
			seen.push([r, now]);
			await ctx.call("t", { i, r, now });
		}
		return { seen };
	}`)
	first, err := runScript(t, p, `{}`, ScriptCall{})
	if err != nil || len(first.Suspended) != 1 {
		t.Fatalf("got %+v, %v", first, err)
	}
	var firstInput struct {
		R   float64 `json:"r"`
		Now int64   `json:"now"`
	}
	if err := json.Unmarshal(first.Suspended[0].Input, &firstInput); err != nil {
		t.Fatal(err)
	}
	out, invocations, err := drive(t, p, `{}`, 3, echo)
	if err != nil || invocations != 4 {
		t.Fatalf("%d invocations, %v", invocations, err)
	}
	var got struct{ Seen [][2]float64 }
	if err := json.Unmarshal(out.Output, &got); err != nil {
		t.Fatal(err)
	}
	if got.Seen[0][0] != firstInput.R || int64(got.Seen[0][1]) != firstInput.Now || firstInput.Now != testClock.UnixMilli() {
		t.Fatalf("the finishing replay saw %v first, the first run %+v", got.Seen[0], firstInput)
	}
	if got.Seen[0][0] == got.Seen[1][0] {
		t.Fatalf("Math.random repeated itself: %v", got.Seen)
	}

	// Another seed is another run: its record does not replay here.
	var record []Recorded
	for i := 0; i < 3; i++ {
		res, err := runScript(t, p, `{}`, ScriptCall{Record: record})
		if err != nil {
			t.Fatal(err)
		}
		record = append(record, echo(res.Suspended[0]))
	}
	_, err = runScript(t, p, `{}`, ScriptCall{Record: record}, func(c *Call) { c.Seed = 2 })
	wantCode(t, err, errcode.ScriptNondeterministic)
}

func TestScriptRecordBeyondTheReplayIsFineWhileSuspended(t *testing.T) {
	p := compileModule(t, twoCalls)
	// Index 1 recorded, index 0 not: the replay suspends at 0 and never
	// reaches 1, which is no error yet.
	record := []Recorded{recordCall(1, "echo", `{"n":6}`, `{"n":7}`)}
	res, err := runScript(t, p, `{"n":1}`, ScriptCall{Record: record})
	wantSuspended(t, res, err, `[{"index":0,"kind":"call","tool":"echo","input":{"n":1}}]`)
}
