package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg"
)

// planningSteps is the size of the graph-planning workload (docs/PERFORMANCE.md).
const planningSteps = 200

// planningProfile generates a run.yaml with one method of n steps that cycles
// through every step kind, each reading the inputs and the step before it, so
// planning checks references, schemas and kinds as a real profile makes it.
func planningProfile(n int) string {
	var b strings.Builder
	b.WriteString(`minimum_runx: 0.1.0
methods:
  plan:
    description: A generated planning workload.
    inputs:
      subject: { type: string, required: true, description: What the run is about. }
      count: { type: integer, default: 1 }
      items: { type: array, default: [] }
      options: { type: object, schema: { type: object, properties: { mode: { enum: [fast, careful] } } } }
    outputs:
      summary: { type: string }
    effects: ask
    steps:
`)
	kinds := []string{
		"tool: { module: compose.mjs, requires: [parseData] }",
		"tool: fs.read",
		"operation: forge/issue.read\n        idempotency_key: $input.subject\n        approval: { reason: Approve the read., type: forge_read }",
		"skill: ./child#summarize\n        for_each: $input.items\n        concurrency: 4",
		"agent: { task: Summarize what came before., calls: { tools: [fs.read], operations: [forge/issue.read] } }",
		"ask: { questions: [{ id: go, prompt: Continue?, options: [{ label: yes }, { label: no }] }] }",
		"script: { module: scripts/run.mjs, max_calls: 50, calls: { tools: [fs.read] } }",
		"tool: { command: bin/tool, args: [--json], environment: { optional: [LOG_LEVEL] } }",
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "      - id: s%d\n        %s\n", i, kinds[i%len(kinds)])
		b.WriteString("        inputs:\n          subject: $input.subject\n          count: $input.count\n")
		if i > 0 {
			fmt.Fprintf(&b, "          previous: $steps.s%d.summary\n", i-1)
		}
		if i%len(kinds) == 3 {
			b.WriteString("          item: $item.text\n")
		}
		b.WriteString("          literal: { note: \"$$not a reference\", n: 3, ok: true }\n")
		b.WriteString("        outputs: { summary: { type: string } }\n")
		if i%len(kinds) == 1 {
			b.WriteString("        timeout_seconds: 30\n        retry: { max_attempts: 3 }\n")
		}
	}
	fmt.Fprintf(&b, "    result_from: [s%d]\n", n-1)
	return b.String()
}

func writePlanningPackage(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	files := map[string]string{
		"SKILL.md":        "---\nname: planning\ndescription: Graph planning workload.\n---\nPlan the work.\n",
		"run.yaml":        planningProfile(planningSteps),
		"compose.mjs":     "export default (input) => ({ summary: input.subject })\n",
		"scripts/run.mjs": "export default async (ctx) => ({ summary: 'done' })\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkPlan200Steps measures planning a 200-step method from disk: read
// and digest the package, parse SKILL.md and run.yaml under the strict
// subset, validate every step and reference, select the method and bind its
// inputs. Target: under 5 ms/op. The sub-benchmarks are the plan cache's
// three cases: cold (no cache: every load parses run.yaml with goccy),
// disk (a new cache on a warm directory each time: what a cold CLI process
// of an unchanged package does) and memory (one cache: a process planning
// the same package again).
func BenchmarkPlan200Steps(b *testing.B) {
	b.Run("cold", func(b *testing.B) { benchPlan(b, func() *pkg.PlanCache { return nil }) })
	b.Run("disk", func(b *testing.B) {
		dir := b.TempDir()
		benchPlan(b, func() *pkg.PlanCache { return pkg.NewPlanCache(dir) })
	})
	b.Run("memory", func(b *testing.B) {
		c := pkg.NewPlanCache("")
		benchPlan(b, func() *pkg.PlanCache { return c })
	})
}

func benchPlan(b *testing.B, cache func() *pkg.PlanCache) {
	dir := writePlanningPackage(b)
	src := pkg.InputSource{
		Pairs:     []string{"subject=release notes", "count=3", `items=[{"text":"a"},{"text":"b"}]`},
		JSONPairs: []string{`options={"mode":"careful"}`},
	}
	plan := func(c *pkg.PlanCache) {
		p, err := pkg.Load(dir, pkg.LoadOptions{RunxVersion: "0.1.0", Cache: c})
		if err != nil {
			b.Fatal(err)
		}
		m, err := p.SelectMethod("plan")
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Steps) != planningSteps {
			b.Fatalf("planned %d steps", len(m.Steps))
		}
		if _, err := pkg.BindInputs(m, src); err != nil {
			b.Fatal(err)
		}
	}
	plan(cache()) // fills a cache that outlives one load
	b.ReportAllocs()
	cpu0 := planningCPU(b)
	for b.Loop() {
		plan(cache())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/planningSteps, "ns/step")
	// The machines running this are often shared: CPU time says what the
	// work costs when wall time says mostly how busy the machine was.
	b.ReportMetric(float64((planningCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// planningCPU is the process's user plus system time so far (garbage
// collection included, which runs on other threads).
func planningCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
