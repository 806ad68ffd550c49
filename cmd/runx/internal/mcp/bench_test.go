package mcp_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// BenchmarkSkillCall is bench's BenchmarkMCPSession in process: one kernel,
// one session, sequential calls of the one-step module skill
// examples/hello-world. Run with -cpuprofile to see a call's server side
// (the JS worker is its own process).
func BenchmarkSkillCall(b *testing.B) {
	k := openKernel(b, "")
	hello, _ := filepath.Abs("../../../../examples/hello-world")
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		callOnce(i)
	}
}
