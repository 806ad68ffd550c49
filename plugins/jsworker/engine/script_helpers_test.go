package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

// runScript runs p once as a script with the test clock and seed 1.
func runScript(tb testing.TB, p *Program, input string, script ScriptCall, edit ...func(*Call)) (ScriptResult, error) {
	tb.Helper()
	c := Call{Input: []byte(input), Clock: testClock, Seed: 1}
	for _, e := range edit {
		e(&c)
	}
	if script.MaxCalls == 0 {
		script.MaxCalls = 100
	}
	return RunScript(context.Background(), p, c, script)
}

// settle answers one pending request as the kernel would record it.
type settleFunc func(Pending) Recorded

// echo answers a call or read with its own input and a wait with until+1.
func echo(p Pending) Recorded {
	r := Recorded{Index: p.Index, Kind: p.Kind, Tool: p.Tool}
	if p.Kind == KindWait {
		r.SettledAt = p.Until + 1
		return r
	}
	r.InputDigest = sha256Digest(p.Input)
	r.Output = p.Input
	return r
}

// drive replays the script until it finishes or fails, settling every
// pending request with answer, and reports the invocations it took.
func drive(tb testing.TB, p *Program, input string, maxCalls int, answer settleFunc) (ScriptResult, int, error) {
	tb.Helper()
	var record []Recorded
	for invocations := 1; ; invocations++ {
		res, err := runScript(tb, p, input, ScriptCall{Record: record, MaxCalls: maxCalls})
		if err != nil || res.Suspended == nil {
			return res, invocations, err
		}
		for _, pending := range res.Suspended {
			record = append(record, answer(pending))
		}
		if invocations > 1000 {
			tb.Fatal("the script never finished")
		}
	}
}

func sha256Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// wantSuspended asserts a run suspended on exactly want (JSON of []Pending).
func wantSuspended(tb testing.TB, res ScriptResult, err error, want string) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("script failed: %v", err)
	}
	if res.Output != nil {
		tb.Fatalf("script finished with %s, want it suspended", res.Output)
	}
	got, _ := json.Marshal(res.Suspended)
	if string(got) != string(want) {
		tb.Fatalf("suspended on %s, want %s", got, want)
	}
}

// wantScriptOutput asserts a run finished with exactly want.
func wantScriptOutput(tb testing.TB, res ScriptResult, err error, want string) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("script failed: %v", err)
	}
	if res.Suspended != nil {
		got, _ := json.Marshal(res.Suspended)
		tb.Fatalf("script suspended on %s, want output %s", got, want)
	}
	if string(res.Output) != string(want) {
		tb.Fatalf("output %s, want %s", res.Output, want)
	}
}

// recordCall is a recorded call answered with output.
func recordCall(index int, tool, input, output string) Recorded {
	return Recorded{Index: index, Kind: KindCall, Tool: tool, InputDigest: sha256Digest([]byte(input)), Output: json.RawMessage(output)}
}
