package pkg

import (
	"fmt"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg/semver"
)

// planningProfile is bench/planning_test.go's graph-planning workload
// (docs/PERFORMANCE.md), copied so the parser can be measured and checked on it
// here: one method of n steps cycling through every step kind.
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

// BenchmarkParsePlanningProfile measures the parser on the 200-step
// planning run.yaml (about 70 KB).
func BenchmarkParsePlanningProfile(b *testing.B) {
	src := []byte(planningProfile(200))
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := parseStrict("run.yaml", src, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodePlanningProfile measures reading run.yaml whole: parse,
// then decode and check every method, step and reference.
func BenchmarkDecodePlanningProfile(b *testing.B) {
	src := []byte(planningProfile(200))
	runx, _ := semver.Parse(testRunx)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeProfile("run.yaml", src, "planning", runx, testRunx); err != nil {
			b.Fatal(err)
		}
	}
}
