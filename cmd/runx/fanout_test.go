package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

const fanSkill = `minimum_runx: 0.1.0
methods:
  go:
    inputs:
      items: { type: array, required: true }
    steps:
      - id: square
        for_each: $input.items
        concurrency: 8
        tool: { module: square.mjs }
        inputs: { n: $item }
`

// A 1,000-item fan-out of a module step completes, its results in item
// order, one worker process serving every item, and its tree verifies.
func TestFanOutThousandItems(t *testing.T) {
	files := skillFiles("fan", fanSkill)
	files["fan/square.mjs"] = "export default function ({ n }) { return { n, square: n * n }; }\n"
	w := newWorkspace(t, files)
	items := make([]string, 1000)
	for i := range items {
		items[i] = strconv.Itoa(i)
	}
	start := time.Now()
	out, code := w.run(`{"items":[`+strings.Join(items, ",")+`]}`, nil, "skill", "./fan", "--inputs", "-", "--json")
	elapsed := time.Since(start)
	if code != 0 || str(out, "outcome") != "completed" {
		t.Fatalf("fan-out: %d %v", code, out)
	}
	results, _ := get(out, "result").([]any)
	if len(results) != 1000 {
		t.Fatalf("want 1000 results, got %d", len(results))
	}
	for i, r := range results {
		if get(r, "n") != float64(i) || get(r, "square") != float64(i*i) {
			t.Fatalf("result %d out of item order: %v", i, r)
		}
	}
	verify, code := w.run("", nil, "verify", str(out, "receipt_id"), "--json")
	if code != 0 || str(verify, "status") != "verified" || get(verify, "receipts") != 1002.0 {
		t.Fatalf("verify: %v", verify)
	}
	t.Logf("1,000-item fan-out sealed in %s", elapsed)
}
