package main

import (
	"strings"
	"testing"
)

func TestParseMetricsKeepsGatedFigures(t *testing.T) {
	got := parseMetrics("116.3 ns/op, 9 p50_µs, 4096 B/op, 31 allocs/op, 2 spawns/op, 12.5 cpu-ms/op")
	want := map[string]float64{"B/op": 4096, "allocs/op": 31, "spawns/op": 2, "cpu-ms/op": 12.5}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: got %v, want %v", k, got[k], v)
		}
	}
}

func TestCompareFailsARegressionPastItsTolerance(t *testing.T) {
	base := map[string]map[string]float64{
		"BenchmarkA": {"allocs/op": 100, "spawns/op": 2, "cpu-ms/op": 10},
		"BenchmarkB": {"allocs/op": 10},
		"BenchmarkC": {"B/op": 1000},
	}
	cases := []struct {
		name string
		got  map[string]map[string]float64
		fail []string
		note bool
	}{
		{"within tolerance", map[string]map[string]float64{
			"BenchmarkA": {"allocs/op": 119, "spawns/op": 2, "cpu-ms/op": 15.9},
			"BenchmarkB": {"allocs/op": 10}, "BenchmarkC": {"B/op": 1290}}, nil, false},
		{"allocations grew", map[string]map[string]float64{
			"BenchmarkA": {"allocs/op": 121, "spawns/op": 2, "cpu-ms/op": 10},
			"BenchmarkB": {"allocs/op": 10}, "BenchmarkC": {"B/op": 1000}}, []string{"BenchmarkA: allocs/op 121"}, false},
		{"one more process", map[string]map[string]float64{
			"BenchmarkA": {"allocs/op": 100, "spawns/op": 3, "cpu-ms/op": 10},
			"BenchmarkB": {"allocs/op": 10}, "BenchmarkC": {"B/op": 1000}}, []string{"spawns/op 3"}, false},
		{"a workload went missing", map[string]map[string]float64{
			"BenchmarkA": {"allocs/op": 100, "spawns/op": 2, "cpu-ms/op": 10},
			"BenchmarkC": {"B/op": 1000}}, []string{"BenchmarkB: in the baseline but not measured"}, false},
		{"a metric went missing", map[string]map[string]float64{
			"BenchmarkA": {"allocs/op": 100, "spawns/op": 2},
			"BenchmarkB": {"allocs/op": 10}, "BenchmarkC": {"B/op": 1000}}, []string{"cpu-ms/op no longer reported"}, false},
		{"better is a note, not a failure", map[string]map[string]float64{
			"BenchmarkA": {"allocs/op": 50, "spawns/op": 2, "cpu-ms/op": 10},
			"BenchmarkB": {"allocs/op": 10}, "BenchmarkC": {"B/op": 1000}}, nil, true},
	}
	for _, c := range cases {
		regressions, notes := compare(base, c.got)
		if len(regressions) != len(c.fail) {
			t.Fatalf("%s: regressions %q, want %d matching %q", c.name, regressions, len(c.fail), c.fail)
		}
		for i, want := range c.fail {
			if !strings.Contains(regressions[i], want) {
				t.Fatalf("%s: regression %q does not say %q", c.name, regressions[i], want)
			}
		}
		if (len(notes) > 0) != c.note {
			t.Fatalf("%s: notes %q", c.name, notes)
		}
	}
}
