package mcp_test

import (
	"context"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// BenchmarkSkillCall is bench's BenchmarkMCPSession in process: one kernel,
// one session, sequential calls of the one-step module skill
// examples/hello-world. Run with -cpuprofile to see a call's server side
// (the JS worker is its own process).
func BenchmarkSkillCall(b *testing.B) {
	k := openKernel(b, "")
	hello, _ := filepath.Abs("../../examples/hello-world")
	cs := connect(b, k, kmcp.Options{Refs: []string{hello}}, nil)
	ctx := context.Background()
	callOnce := func(n int) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello-world", Arguments: map[string]any{"message": "m" + strconv.Itoa(n)}})
		if err != nil || res.IsError {
			b.Fatalf("call %d: %v %v", n, err, res)
		}
	}
	callOnce(-1) // starts the JS worker
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		callOnce(i)
	}
	b.StopTimer()
	// The server's CPU (with the in-process client's, which is small):
	// steadier than wall time on a shared machine.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// processCPU is this process's user and system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
