package bench

import (
	"crypto/sha256"
	"encoding/hex"
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
func BenchmarkJSScript100Calls(b *testing.B) {
	const calls = 100
	cache := engine.NewCache(engine.DefaultCacheBytes)
	src := jsScriptSource()
	p, err := cache.Bundle(src)
	if err != nil {
		b.Fatal(err)
	}
	call := engine.Call{Input: []byte(`{"calls":100}`), Clock: time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC), Seed: 1}
	var lat latencies
	var invocations int
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		record := make([]engine.Recorded, 0, calls)
		for invocations = 1; ; invocations++ {
			res, err := engine.RunScript(b.Context(), p, call, engine.ScriptCall{Record: record, MaxCalls: calls})
			if err != nil {
				b.Fatal(err)
			}
			if res.Output != nil {
				if string(res.Output) != `{"total":4950}` {
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
