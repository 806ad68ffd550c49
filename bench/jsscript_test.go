package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/plugins/jsworker/engine"
)

// jsScriptSource awaits 100 calls one after another, each input built from
// the answer before, so every call needs its own suspension: the worst case
// for suspend and replay, n+1 invocations replaying 0..n recorded calls.
func jsScriptSource() engine.Source {
	return engine.Source{Entry: "loop.mjs", Files: map[string][]byte{
		"loop.mjs": []byte(`export default async function (input, ctx) {
  let acc = { i: 0, total: 0 };
  for (let i = 0; i < input.calls; i++) {
    const r = await ctx.call("bench.echo", { i, total: acc.total + i });
    acc = { i: r.i, total: r.total };
  }
  return { total: acc.total };
}
`),
	}}
}

// BenchmarkJSScript100Calls drives a 100-call sequential script to
// completion the way the kernel does: run, carry out what it suspends on
// (here: answer each call with its own input), record, replay, until done.
// It reports the whole drive's latency and the invocations it took; the
// program is cached, as it is in a warm worker.
func BenchmarkJSScript100Calls(b *testing.B) { benchSequentialScript(b, 100, true) }

// BenchmarkJSScript1000Calls is the same drive with 1,000 sequential calls,
// as the kernel drives it (session: the worker keeps the suspended script
// and each invocation sends only the new entries, then one replay checks
// the finished script) and as it did before (replay: every invocation
// replays the whole record from the start, time quadratic in the length).
func BenchmarkJSScript1000Calls(b *testing.B) {
	b.Run("session", func(b *testing.B) { benchSequentialScript(b, 1000, true) })
	b.Run("replay", func(b *testing.B) { benchSequentialScript(b, 1000, false) })
}

func benchSequentialScript(b *testing.B, calls int, session bool) {
	cache := engine.NewCache(engine.DefaultCacheBytes)
	src := jsScriptSource()
	p, err := cache.Bundle(src)
	if err != nil {
		b.Fatal(err)
	}
	call := engine.Call{Input: []byte(fmt.Sprintf(`{"calls":%d}`, calls)), Clock: time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC), Seed: 1}
	var lat latencies
	var invocations int
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		record := make([]engine.Recorded, 0, calls)
		sent := 0
		for invocations = 1; ; invocations++ {
			sc := engine.ScriptCall{Record: record, MaxCalls: calls}
			if session {
				sc = engine.ScriptCall{Record: record[sent:], MaxCalls: calls, Session: "bench", RecordFrom: sent}
				sent = len(record)
			}
			res, err := engine.RunScript(b.Context(), p, call, sc)
			if err != nil {
				b.Fatal(err)
			}
			if res.ReplayNeeded {
				b.Fatal("the worker lost its session")
			}
			if res.Output != nil {
				if string(res.Output) != fmt.Sprintf(`{"total":%d}`, calls*(calls-1)/2) {
					b.Fatalf("output %s", res.Output)
				}
				break
			}
			for _, pending := range res.Suspended {
				sum := sha256.Sum256(pending.Input)
				record = append(record, engine.Recorded{Index: pending.Index, Kind: pending.Kind, Tool: pending.Tool,
					InputDigest: "sha256:" + hex.EncodeToString(sum[:]), Output: pending.Input})
			}
		}
		lat = append(lat, time.Since(start))
	}
	lat.report(b, time.Millisecond, "ms")
	b.ReportMetric(float64(invocations), "invocations")
	b.ReportMetric(float64(invocations-1), "replays")
}

// BenchmarkScriptStep1000Calls is a script step that awaits 1,000 calls of
// a native tool one after another, driven by the CLI: every call admitted,
// carried out, receipted and recorded by the kernel, the worker resuming
// the suspended script in its session each time, one replay at the end.
func BenchmarkScriptStep1000Calls(b *testing.B) {
	dir, home := b.TempDir(), b.TempDir()
	skill := filepath.Join(dir, "seq")
	os.MkdirAll(skill, 0o755)
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: seq\ndescription: Reads a file a thousand times in turn.\n---\nRead.\n"), 0o644)
	os.WriteFile(filepath.Join(skill, "loop.mjs"), []byte(`export default async function (input, ctx) {
  let n = 0;
  for (let i = 0; i < 1000; i++) {
    const r = await ctx.call("fs.read", { path: "data.txt" });
    n += r.content.length;
  }
  return { n };
}
`), 0o644)
	os.WriteFile(filepath.Join(skill, "run.yaml"), []byte(`minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: loop
        script: { module: loop.mjs, max_calls: 1000, calls: { tools: [fs.read] } }
`), 0o644)
	var lat latencies
	for i := 0; i < b.N; i++ {
		d, _, out := cliRun(b, dir, home, "", "skill", "./seq", "--json")
		if !strings.Contains(string(out), `"n": 2000`) {
			b.Fatalf("the script did not complete: %.600s", out)
		}
		lat = append(lat, d)
	}
	lat.report(b, time.Millisecond, "ms")
}
