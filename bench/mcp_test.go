package bench

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/internal/testenv"
)

// mcpSessionCalls is how many sequential calls one session makes.
const mcpSessionCalls = 100

// BenchmarkMCPSession is one `runx mcp` server process over stdio, driven by
// the go-sdk client: 100 sequential calls of a one-step module skill. One
// kernel serves the session, so one JS worker process serves every call;
// the benchmark fails if a call starts another. The workspace (run records,
// receipts) is on disk, and, where the machine has one, in tmpfs, to tell
// runx's own cost from the disk's fsyncs, which every sealed run makes.
// Target: p50 per call under 5 ms. cpu-ms/call is the server's and its
// worker's user and system time a call (after the first), which moves less
// with other tenants' load than the wall-clock quantiles do.
func BenchmarkMCPSession(b *testing.B) {
	b.Run("disk", func(b *testing.B) { benchMCPSession(b, b.TempDir()) })
	b.Run("tmpfs", func(b *testing.B) {
		dir, ok := receiptBenchTmpfs(b)
		if !ok {
			b.Skip("no /dev/shm on this machine")
		}
		benchMCPSession(b, dir)
	})
}

func benchMCPSession(b *testing.B, dir string) {
	home := filepath.Join(dir, ".home")
	pkg := repoPath("examples/hello-world")
	var lat latencies
	var cpu, workerCPU time.Duration
	workers := map[int]bool{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(filepath.Join(binDir, "runx"), "mcp", pkg)
		testenv.Project(b, dir)
		cmd.Dir = dir
		cmd.Env = testenv.Env(dir, "RUNX_HOME="+home)
		ctx := context.Background()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		session := map[int]bool{}
		var cpuStart, workerStart time.Duration
		for n := 0; n < mcpSessionCalls; n++ {
			if n == 1 {
				// After the first call, which starts the worker.
				cpuStart = sessionCPU(cmd.Process.Pid, session)
				workerStart = sessionCPU(0, session)
			}
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello-world", Arguments: map[string]any{"message": "m" + strconv.Itoa(n)}})
			d := time.Since(start)
			if err != nil || res.IsError {
				b.Fatalf("call %d: %v %v", n, err, res)
			}
			lat = append(lat, d)
			for _, pid := range jsWorkers(cmd.Process.Pid) {
				session[pid] = true
			}
		}
		cpu += sessionCPU(cmd.Process.Pid, session) - cpuStart
		workerCPU += sessionCPU(0, session) - workerStart
		if len(session) != 1 {
			b.Fatalf("one session used %d worker processes, want 1", len(session))
		}
		for pid := range session {
			workers[pid] = true
		}
		cs.Close()
	}
	lat.report(b, time.Microsecond, "µs")
	b.ReportMetric(mcpSessionCalls, "calls/op")
	perCall := func(d time.Duration) float64 {
		return float64(d) / float64(time.Millisecond) / float64(max(b.N, 1)*(mcpSessionCalls-1))
	}
	b.ReportMetric(perCall(cpu), "cpu-ms/call")
	// The JS worker's share alone, to tell its cost from the server's.
	b.ReportMetric(perCall(workerCPU), "worker-cpu-ms/call")
	b.ReportMetric(float64(1+len(workers)/max(b.N, 1)), "spawns/op")
}

// jsWorkers lists the JS worker processes (runx plugin serve js) a server
// process has started, from /proc.
func jsWorkers(parent int) []int {
	// A Go process starts children from any of its threads, and each
	// thread lists its own.
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(parent) + "/task/*/children")
	var children []string
	for _, t := range tasks {
		raw, _ := os.ReadFile(t)
		children = append(children, strings.Fields(string(raw))...)
	}
	var out []int
	for _, f := range children {
		pid, _ := strconv.Atoi(f)
		cmdline, _ := os.ReadFile("/proc/" + f + "/cmdline")
		if bytes.Contains(cmdline, []byte("plugin\x00serve\x00js\x00")) {
			out = append(out, pid)
		}
	}
	return out
}

// sessionCPU is the CPU time, user and system, of the server process and
// the workers seen so far, from /proc/<pid>/stat; a server of 0 counts the
// workers alone.
func sessionCPU(server int, workers map[int]bool) time.Duration {
	var total time.Duration
	if server != 0 {
		total = procCPU(server)
	}
	for pid := range workers {
		total += procCPU(pid)
	}
	return total
}

// procCPU reads one process's utime and stime (fields 14 and 15, after the
// parenthesised command name); zero when the process is gone.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0
	}
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	// USER_HZ is 100 on every Linux architecture Go supports.
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
