// Command report runs runx's named workloads (the benchmarks in bench/) and
// writes docs/PERFORMANCE.md: each workload's figures beside its target, with
// the machine and its load, because a loaded 2-core machine moves tails a lot.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// workload is one benchmark run with the iterations it needs.
type workload struct {
	pattern, benchtime, target string
	// pkg is the package whose benchmark it is, when not ./bench (a
	// plugin's own workload, measured without the plugin protocol).
	pkg string
}

var workloads = []workload{
	{"BenchmarkColdHelloWorld$", "20x", "median < 40 ms, < 30 MiB peak per process (2 processes)", ""},
	{"BenchmarkResumeCold$", "20x", "median < 30 ms", ""},
	{"BenchmarkGRPCFloor$", "2000x", "(recorded) the floor: a raw gRPC unary call to another process over a unix socket", ""},
	{"BenchmarkPluginDispatchWarm$", "2000x", "p50 < 150 µs", ""},
	{"BenchmarkPluginColdStart$", "20x", "(part of the cold run)", ""},
	{"BenchmarkLargePayload64MiB$", "5x", "64 MiB each way through a plugin", ""},
	{"BenchmarkProcessLaunch$", "200x", "(recorded)", ""},
	{"BenchmarkJSModuleWarm$", "2000x", "p50 < 1 ms", ""},
	{"BenchmarkJSModuleCold$", "200x", "(recorded)", ""},
	{"BenchmarkFanOut1000$", "3x", "< 2 s wall, one worker process", ""},
	{"BenchmarkPlan200Steps/", "50x", "< 5 ms", ""},
	{"BenchmarkReceiptSealStore", "5000x", "> 5,000 receipts/s", ""},
	{"BenchmarkReceiptTreeVerify30002$", "2x", "< 3 s, < 64 MiB heap", ""},
	{"BenchmarkJournalTransition$", "2000x", "> 2,000 transitions/s durable", ""},
	{"BenchmarkJournalEffectFreeRun$", "2000x", "(recorded) the journal's share of a sealed MCP call: a deferred creation, a durable seal", ""},
	{"BenchmarkSpendReserve$", "300x", "(recorded) one transaction per priced call under a limit", ""},
	{"BenchmarkAuthorityDecision", "20000x", "< 10 µs each", ""},
	{"BenchmarkFSSearch10k$", "5x", "< 300 ms", ""},
	{"BenchmarkFSApplyBundle100$", "10x", "< 200 ms including the journal", ""},
	{"BenchmarkMCPSession/", "3x", "p50 < 5 ms per call, one worker process for the session", ""},
	{"BenchmarkStore", "2s", "driver overhead < 1.5x raw (appends), < 1.2x (reads)", ""},
	{"BenchmarkProcessRead100MiB$", "3x", "> 200 MB/s (through the plugin host)", ""},
	{"BenchmarkReadLog$", "3x", "> 200 MB/s (the capability itself)", "./plugins/process"},
	{"BenchmarkArtifactRead100MiB/", "3x", "> 300 MB/s (through the plugin host)", ""},
	{"BenchmarkJSScript1000Calls/", "3x", "linear in the calls (the worker alone)", ""},
	{"BenchmarkScriptStep1000Calls$", "1x", "linear in the calls (the whole step, through the CLI)", ""},
	{"BenchmarkAgentRound$", "500x", "< 2 ms a round, excluding the provider's time", "./kernel/agent"},
	{"BenchmarkHTTPOperation$", "2000x", "within 1.3x of a raw net/http call (overhead_x)", ""},
	{"BenchmarkRequestInProcess$", "3000x", "within 1.3x of a raw net/http call (the capability itself)", "./plugins/http"},
	{"BenchmarkCredentialDispatch/", "1000x", "a delivered credential within noise of none (p50)", ""},
	{"BenchmarkCredentialBoundary/", "300x", "< 5 µs a 4 KiB step with a credential", ""},
	{"BenchmarkRegistrySearch10k/", "300x", "p50 < 20 ms over 10,000 published skills (SQLite, through the API)", ""},
	{"BenchmarkRegistryInstall50Cold$", "20x", "median < 150 ms: a 50-file skill from a registry on loopback, a cold process", ""},
	{"BenchmarkNotarizeRoundTrip/", "300x", "p50 < 10 ms: a sealed receipt notarized on loopback (SQLite, durable)", ""},
	{"BenchmarkNotaryInclusionVerify1M/", "2000x", "< 1 ms: a record verified offline in a log of 1,000,000 entries", ""},
}

func main() {
	out := flag.String("out", "docs/PERFORMANCE.md", "where to write the report")
	only := flag.String("only", "", "run only workloads whose pattern contains this")
	check := flag.String("check", "", "compare the gated workloads' steady figures with this baseline and fail on a regression")
	baseline := flag.String("write-baseline", "", "measure the gated workloads and write this baseline")
	flag.Parse()
	switch {
	case *check != "":
		os.Exit(gate(*check, false))
	case *baseline != "":
		os.Exit(gate(*baseline, true))
	}
	var rows []string
	var ran []workload
	for _, w := range workloads {
		if *only != "" && !strings.Contains(w.pattern, *only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "running %s (%s)\n", w.pattern, w.benchtime)
		ran = append(ran, w)
		lines, err := run(w)
		if err != nil {
			rows = append(rows, fmt.Sprintf("| `%s` | did not run: %v | %s |", strings.TrimSuffix(w.pattern, "$"), err, w.target))
			continue
		}
		for _, l := range lines {
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |", l.name, l.metrics, w.target))
		}
	}
	if err := write(*out, ran, rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type line struct{ name, metrics string }

func run(w workload) ([]line, error) {
	pkg := w.pkg
	if pkg == "" {
		pkg = "./bench"
	}
	cmd := exec.Command("go", "test", pkg, "-run", "^$", "-bench", w.pattern, "-benchtime", w.benchtime, "-benchmem", "-timeout", "30m")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	var lines []line
	for s := bufio.NewScanner(&buf); s.Scan(); {
		f := strings.Fields(s.Text())
		if len(f) < 3 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimSuffix(f[0], fmt.Sprintf("-%d", runtime.NumCPU()))
		var metrics []string
		for i := 2; i+1 < len(f); i += 2 {
			metrics = append(metrics, f[i]+" "+f[i+1])
		}
		lines = append(lines, line{name, strings.Join(metrics, ", ")})
	}
	if len(lines) == 0 && err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLines(buf.String(), 3))
	}
	return lines, nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " / ")
}
