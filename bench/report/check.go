package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The performance gate (make bench-check) compares the steady figures of a
// fast subset of the named workloads with a committed baseline: what a
// loaded machine moves little (allocations, bytes allocated, process spawns,
// CPU time), never wall time or tails. A figure past its tolerance fails the
// gate; a faster or leaner one passes and says the baseline can be taken
// again (make bench-baseline).

// gated are the workloads the gate runs: each cheap enough that the whole
// gate runs in a few minutes on two cores.
var gated = []workload{
	{pattern: "BenchmarkAuthorityDecision", benchtime: "20000x"},
	{pattern: "BenchmarkPlan200Steps/memory$", benchtime: "50x"},
	{pattern: "BenchmarkPlan200Steps/disk$", benchtime: "50x"},
	{pattern: "BenchmarkPluginDispatchWarm$", benchtime: "2000x"},
	{pattern: "BenchmarkJSModuleWarm$", benchtime: "500x"},
	{pattern: "BenchmarkReceiptSealStore", benchtime: "2000x"},
	{pattern: "BenchmarkColdHelloWorld$", benchtime: "10x"},
	// The registry's: a search over 10,000 skills (the fill takes seconds
	// in a tmpfs, about a minute on disk) and a cold install of 50 files.
	{pattern: "BenchmarkRegistrySearch10k/", benchtime: "200x"},
	{pattern: "BenchmarkRegistryInstall50Cold$", benchtime: "10x"},
}

// tolerance is how far past its baseline a figure may move before the gate
// fails, by metric; metrics not listed are recorded but not gated.
var tolerance = map[string]float64{
	"allocs/op": 0.20,
	"B/op":      0.30,
	"spawns/op": 0,
	"cpu-ms/op": 0.60,
}

// Baseline is the committed file: workload name, then metric, then value.
type Baseline struct {
	Schema    string                        `json:"schema"`
	Workloads map[string]map[string]float64 `json:"workloads"`
}

const baselineSchema = "runx.bench_baseline.v1"

// measureGated runs the gated workloads and returns their figures.
func measureGated() (map[string]map[string]float64, error) {
	got := map[string]map[string]float64{}
	for _, w := range gated {
		fmt.Fprintf(os.Stderr, "running %s (%s)\n", w.pattern, w.benchtime)
		lines, err := run(w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.pattern, err)
		}
		for _, l := range lines {
			got[l.name] = parseMetrics(l.metrics)
		}
	}
	return got, nil
}

// parseMetrics reads "12.5 ns/op, 3 allocs/op" back into numbers, keeping
// the metrics the gate knows.
func parseMetrics(s string) map[string]float64 {
	m := map[string]float64{}
	for _, part := range strings.Split(s, ", ") {
		f := strings.Fields(part)
		if len(f) != 2 {
			continue
		}
		if _, gatedMetric := tolerance[f[1]]; !gatedMetric {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			m[f[1]] = v
		}
	}
	return m
}

// compare lists every figure past its tolerance, and every workload or
// metric the baseline holds that the run no longer reports.
func compare(base, got map[string]map[string]float64) (regressions, notes []string) {
	names := make([]string, 0, len(base))
	for n := range base {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		now, ok := got[name]
		if !ok {
			regressions = append(regressions, fmt.Sprintf("%s: in the baseline but not measured", name))
			continue
		}
		metrics := make([]string, 0, len(base[name]))
		for m := range base[name] {
			metrics = append(metrics, m)
		}
		sort.Strings(metrics)
		for _, metric := range metrics {
			was := base[name][metric]
			is, ok := now[metric]
			if !ok {
				regressions = append(regressions, fmt.Sprintf("%s: %s no longer reported", name, metric))
				continue
			}
			limit := was * (1 + tolerance[metric])
			switch {
			case is > limit && is-was > 0.5: // below half a unit is rounding
				regressions = append(regressions, fmt.Sprintf("%s: %s %.4g, baseline %.4g (tolerance +%.0f%%)", name, metric, is, was, tolerance[metric]*100))
			case is < was*(1-tolerance[metric]) && was-is > 0.5:
				notes = append(notes, fmt.Sprintf("%s: %s %.4g, baseline %.4g: better; take the baseline again", name, metric, is, was))
			}
		}
	}
	return regressions, notes
}

func readBaseline(path string) (*Baseline, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b Baseline
	if err := json.Unmarshal(raw, &b); err != nil || b.Schema != baselineSchema {
		return nil, fmt.Errorf("%s is not a %s document", path, baselineSchema)
	}
	return &b, nil
}

func writeBaseline(path string, got map[string]map[string]float64) error {
	raw, err := json.MarshalIndent(Baseline{Schema: baselineSchema, Workloads: got}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// gate is make bench-check (and, with write, make bench-baseline).
func gate(path string, write bool) int {
	got, err := measureGated()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-check:", err)
		return 1
	}
	if write {
		if err := writeBaseline(path, got); err != nil {
			fmt.Fprintln(os.Stderr, "bench-baseline:", err)
			return 1
		}
		fmt.Printf("bench-baseline: wrote %d workloads to %s\n", len(got), path)
		return 0
	}
	base, err := readBaseline(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-check:", err)
		return 1
	}
	regressions, notes := compare(base.Workloads, got)
	for _, n := range notes {
		fmt.Println("bench-check: note:", n)
	}
	for _, r := range regressions {
		fmt.Println("bench-check: REGRESSION:", r)
	}
	if len(regressions) > 0 {
		return 1
	}
	fmt.Printf("bench-check: %d workloads within their baseline\n", len(base.Workloads))
	return 0
}
