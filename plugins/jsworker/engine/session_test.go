package engine

import (
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// driveSession drives a script as the kernel does with a session: the first
// call sends the whole record, every later one only the new entries.
func driveSession(tb testing.TB, p *Program, input, key string, maxCalls int, answer settleFunc) (ScriptResult, int, error) {
	tb.Helper()
	var record []Recorded
	sent := 0
	for invocations := 1; ; invocations++ {
		res, err := runScript(tb, p, input, ScriptCall{Record: record[sent:], RecordFrom: sent, Session: key, MaxCalls: maxCalls})
		if err != nil || res.Suspended == nil {
			return res, invocations, err
		}
		if res.ReplayNeeded {
			tb.Fatalf("invocation %d: the worker lost the session", invocations)
		}
		sent = len(record)
		for _, pending := range res.Suspended {
			record = append(record, answer(pending))
		}
		if invocations > 1000 {
			tb.Fatal("the script never finished")
		}
	}
}

const sequentialScript = `export default async function (input, ctx) {
	let total = 0;
	for (let i = 0; i < input.n; i++) {
		const r = await ctx.call("t", { i, total });
		total = r.total + r.i;
	}
	const [a, b] = await Promise.all([ctx.call("t", { last: 1 }), ctx.read({ $ref: "r" })]);
	const at = await ctx.wait({ until: 5 });
	return { total, a, b, at };
}`

// A script resumed in its session, each invocation given only the entries
// settled since, answers exactly what a replay at every suspension answers,
// in the same number of invocations.
func TestSessionResumeAnswersAsReplay(t *testing.T) {
	p := compileModule(t, sequentialScript)
	replayed, replays, err := drive(t, p, `{"n":20}`, 100, echo)
	if err != nil {
		t.Fatal(err)
	}
	live, resumes, err := driveSession(t, p, `{"n":20}`, "run#s", 100, echo)
	if err != nil {
		t.Fatal(err)
	}
	if string(live.Output) != string(replayed.Output) || resumes != replays {
		t.Fatalf("session: %s in %d invocations; replay: %s in %d", live.Output, resumes, replayed.Output, replays)
	}
	if string(live.Output) != `{"total":190,"a":{"last":1},"b":{"$ref":"r"},"at":6}` {
		t.Fatalf("output %s", live.Output)
	}
}

// A call that continues a session the worker does not hold, or one that
// does not continue where it stopped, or one with another input, asks for
// the whole record; a record_from with no session is refused.
func TestSessionLostAsksForTheWholeRecord(t *testing.T) {
	p := compileModule(t, sequentialScript)
	res, err := runScript(t, p, `{"n":3}`, ScriptCall{Record: nil, RecordFrom: 2, Session: "nobody"})
	if err != nil || !res.ReplayNeeded {
		t.Fatalf("an unknown session: %+v %v", res, err)
	}
	first, err := runScript(t, p, `{"n":3}`, ScriptCall{Session: "k"})
	if err != nil || len(first.Suspended) != 1 {
		t.Fatalf("first: %+v %v", first, err)
	}
	rec := echo(first.Suspended[0])
	res, err = runScript(t, p, `{"n":3}`, ScriptCall{Record: []Recorded{rec}, RecordFrom: 1, Session: "k"})
	if err != nil || !res.ReplayNeeded {
		t.Fatalf("a session that holds no entry continued at 1: %+v %v", res, err)
	}
	if _, err := runScript(t, p, `{"n":4}`, ScriptCall{Session: "k2"}); err != nil {
		t.Fatal(err)
	}
	res, err = runScript(t, p, `{"n":3}`, ScriptCall{Record: []Recorded{rec}, RecordFrom: 0 + 1, Session: "k2"})
	if err != nil || !res.ReplayNeeded {
		t.Fatalf("another input: %+v %v", res, err)
	}
	_, err = runScript(t, p, `{"n":3}`, ScriptCall{RecordFrom: 1})
	wantCode(t, err, errcode.ScriptRecordInvalid)
}

// heldSession starts a session and resumes it once, so it holds one entry
// and waits on request 1.
func heldSession(t *testing.T, p *Program, key string) Pending {
	first, err := runScript(t, p, `{"n":3}`, ScriptCall{Session: key})
	if err != nil || len(first.Suspended) != 1 {
		t.Fatalf("first: %+v %v", first, err)
	}
	second, err := runScript(t, p, `{"n":3}`, ScriptCall{Record: []Recorded{echo(first.Suspended[0])}, Session: key})
	if err != nil || len(second.Suspended) != 1 || second.Suspended[0].Index != 1 {
		t.Fatalf("second: %+v %v", second, err)
	}
	return second.Suspended[0]
}

// An entry that settles nothing the script waits on, or settles it with
// another request's digest, is refused, never given to the wrong promise.
func TestSessionHoldsEntriesToWhatWasAsked(t *testing.T) {
	p := compileModule(t, sequentialScript)
	waiting := heldSession(t, p, "a")
	stray := echo(waiting)
	stray.Index = 7
	_, err := runScript(t, p, `{"n":3}`, ScriptCall{Record: []Recorded{stray}, RecordFrom: 1, Session: "a"})
	wantCode(t, err, errcode.ScriptRecordInvalid)

	waiting = heldSession(t, p, "b")
	other := echo(waiting)
	other.InputDigest = sha256Digest([]byte(`{"other":true}`))
	_, err = runScript(t, p, `{"n":3}`, ScriptCall{Record: []Recorded{other}, RecordFrom: 1, Session: "b"})
	wantCode(t, err, errcode.ScriptNondeterministic)

	// The right entry resumes it where it stopped.
	waiting = heldSession(t, p, "c")
	res, err := runScript(t, p, `{"n":3}`, ScriptCall{Record: []Recorded{echo(waiting)}, RecordFrom: 1, Session: "c"})
	if err != nil || res.ReplayNeeded || len(res.Suspended) != 1 || res.Suspended[0].Index != 2 {
		t.Fatalf("resumed: %+v %v", res, err)
	}
}

// A script whose live run and replay differ (it races a request against a
// settled promise) answers what the replay of its whole record answers,
// the answer every later replay reproduces.
func TestSessionFinishAnswersTheReplay(t *testing.T) {
	p := compileModule(t, `export default async function (input, ctx) {
		await ctx.call("t", { first: 1 });
		await ctx.call("t", { second: 2 });
		const won = await Promise.race([ctx.call("t", { v: "call" }), Promise.resolve({ v: "settled" })]);
		return { won: won.v };
	}`)
	replayed, _, err := drive(t, p, `{}`, 10, echo)
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := driveSession(t, p, `{}`, "race", 10, echo)
	if err != nil {
		t.Fatal(err)
	}
	if string(live.Output) != string(replayed.Output) || string(live.Output) != `{"won":"call"}` {
		t.Fatalf("session answered %s, a replay %s", live.Output, replayed.Output)
	}
}
