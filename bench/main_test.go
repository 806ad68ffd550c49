// Package bench holds runx's named, replayable workloads (docs/PERFORMANCE.md).
// `make bench` runs them and writes docs/PERFORMANCE.md.
package bench

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// binDir holds the built runx binary and the example plugin, built only when
// a benchmark runs, so `go test ./...` stays fast.
var binDir string

func TestMain(m *testing.M) {
	flag.Parse()
	if dir := os.Getenv("RUNX_BENCH_BINDIR"); dir != "" {
		// Prebuilt binaries (runx, runx-plugin-echo): two builds of runx
		// compared by one test binary, interleaved.
		binDir = dir
		os.Exit(m.Run())
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		dir, err := os.MkdirTemp("", "runx-bench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		binDir = dir
		for pkg, name := range map[string]string{"../cmd/runx": "runx", "../sdk/examples/echo": "runx-plugin-echo"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, "build", pkg, err)
				os.Exit(1)
			}
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// latencies collects per-operation durations and reports their quantiles.
type latencies []time.Duration

func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := append(latencies(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q * float64(len(s)-1))
	return s[i]
}

// report adds p50 and p99 in the given unit to a benchmark's output.
func (l latencies) report(b *testing.B, unit time.Duration, suffix string) {
	b.ReportMetric(float64(l.quantile(0.5))/float64(unit), "p50_"+suffix)
	b.ReportMetric(float64(l.quantile(0.99))/float64(unit), "p99_"+suffix)
}

func repoPath(rel string) string {
	abs, _ := filepath.Abs(filepath.Join("..", rel))
	return abs
}
