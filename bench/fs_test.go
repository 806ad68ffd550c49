package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/plugins/fs"
	"github.com/runxhq/runx/sdk/plugin"
)

// fsBenchTree writes a 10,000-file workspace shaped like a source tree:
// 100 packages in 10 groups, 100 files of about 3 KiB each, an ignored
// build directory, and the needle in one file of every package.
func fsBenchTree(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	line := "\tvalue := compute(input, options) // a line of ordinary source text\n"
	body := "package p\n\n" + strings.Repeat(line, 45)
	write := func(rel, content string) {
		full := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write(".gitignore", "build/\n*.tmp\n")
	for g := range 10 {
		for p := range 10 {
			for f := range 100 {
				content := body
				if f == 42 {
					content += "\tneedleFunction(ctx)\n"
				}
				write(fmt.Sprintf("src/group%02d/pkg%02d/file%03d.go", g, p, f), content)
			}
		}
	}
	// Ignored content is not searched, so it must not count against the
	// budget; it is here to prove that.
	for f := range 200 {
		write(fmt.Sprintf("build/out%03d.go", f), body+"\tneedleFunction(ctx)\n")
	}
	return root
}

// BenchmarkFSSearch10k is fs.search for a literal over a 10,000-file tree,
// through the plugin's Invoke in process (no gRPC), with a warm page cache.
// Target: under 300 ms per search. ms/op is wall time; cpu-ms/op is the
// process's user and system time per search, which says what the search
// costs when other work shares the cores.
func BenchmarkFSSearch10k(b *testing.B) {
	var resp fs.SearchResponse
	fsBenchInvoke(b, fs.CapabilitySearch, fs.SearchRequest{Query: "needleFunction", MaxMatches: 1000}, &resp)
	if resp.Count != 100 || resp.FilesSearched != 10_001 {
		b.Fatalf("searched %d files, found %d matches; want 10001 files and 100 matches", resp.FilesSearched, resp.Count)
	}
}

// BenchmarkFSList10k is a recursive fs.list of the same 10,000-file tree,
// through the plugin's Invoke in process, with a warm page cache.
func BenchmarkFSList10k(b *testing.B) {
	var resp fs.ListResponse
	fsBenchInvoke(b, fs.CapabilityList, fs.ListRequest{Recursive: true, MaxEntries: fs.ListMaxEntries}, &resp)
	if resp.Count != 10_112 {
		b.Fatalf("listed %d entries; want 10,000 files, 111 directories and .gitignore", resp.Count)
	}
}

// fsBenchInvoke calls one fs capability over the 10,000-file tree in the
// benchmark's loop, decodes the last answer into resp, and reports wall
// and CPU milliseconds per call.
func fsBenchInvoke(b *testing.B, capability string, req, resp any) {
	root := fsBenchTree(b)
	p := fs.New()
	in, _ := json.Marshal(req)
	call := &plugin.Call{
		Capability: capability,
		Context:    plugin.Context{WorkspaceRoot: root, Reach: fs.ReachWorkspace},
		Input:      in,
	}
	b.ReportAllocs()
	cpu0 := fsBenchCPU(b)
	start := time.Now()
	for b.Loop() {
		res := p.Invoke(context.Background(), call)
		if res.Status != plugin.StatusOK {
			b.Fatalf("%s: %s", res.Code, res.Message)
		}
		if err := json.Unmarshal(res.Output, resp); err != nil {
			b.Fatal(err)
		}
	}
	wall := time.Since(start)
	cpu := fsBenchCPU(b) - cpu0
	b.ReportMetric(float64(wall.Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// fsBenchCPU is the process's user plus system time so far.
func fsBenchCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
