package bench

import (
	"testing"
	"time"

	"github.com/runxhq/runx/plugins/jsworker/engine"
)

// jsModuleSource is a small deterministic module with one relative import,
// the shape of a typical `tool: { module: compose.mjs }` step.
func jsModuleSource() engine.Source {
	return engine.Source{Entry: "compose.mjs", Files: map[string][]byte{
		"compose.mjs": []byte(`import { greet, pad } from "./lib/text.mjs";
export default function (input, { environment }) {
  const lines = [];
  for (let i = 0; i < input.times; i++) lines.push(pad(i + 1) + " " + greet(input.name, environment.PUNCT));
  return { greeting: lines.join("\n"), host: Runx.parseUrl(input.site).hostname, at: new Date().toISOString() };
}
`),
		"lib/text.mjs": []byte(`export const greet = (name, punct) => "Hello, " + name + (punct ?? "!");
export const pad = (n) => String(n).padStart(3, "0");
`),
	}}
}

func jsModuleCall() engine.Call {
	return engine.Call{
		Input:       []byte(`{"name":"Ada","times":3,"site":"https://example.com/x"}`),
		Environment: map[string]string{"PUNCT": "."},
		Clock:       time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC),
		Seed:        1,
	}
}

// BenchmarkJSModuleCold bundles, compiles and runs the module on every
// iteration: the first call of a closure in a fresh worker.
func BenchmarkJSModuleCold(b *testing.B) {
	benchmarkJSModule(b, engine.NewCache(0)) // a cache that holds nothing
}

// BenchmarkJSModuleWarm runs the cached program: a digest of the closure, a
// cache hit, and a fresh runtime per call.
func BenchmarkJSModuleWarm(b *testing.B) {
	benchmarkJSModule(b, engine.NewCache(engine.DefaultCacheBytes))
}

func benchmarkJSModule(b *testing.B, cache *engine.Cache) {
	src, call := jsModuleSource(), jsModuleCall()
	if _, err := cache.Bundle(src); err != nil { // fill the cache, if it keeps anything
		b.Fatal(err)
	}
	var lat latencies
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		p, err := cache.Bundle(src)
		if err != nil {
			b.Fatal(err)
		}
		res, err := engine.Run(b.Context(), p, call)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if len(res.Output) == 0 {
			b.Fatal("no output")
		}
	}
	lat.report(b, time.Microsecond, "µs")
}
