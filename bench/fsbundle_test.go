package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/plugins/fs"
	"github.com/runxhq/runx/sdk/plugin"
)

// BenchmarkFSApplyBundle100 is fs.apply_bundle replacing 100 files of about
// 2 KiB across 10 directories, through the plugin's Invoke in process (no
// gRPC), in b.TempDir() (the ext4 root disk on the CI machines; a tmpfs
// /tmp would hide the sync cost), including the journal: prior bytes
// recorded and synced before the first rename, every staged file synced,
// every digest checked again before its rename, and the journal marked
// committed.
// Target: under 200 ms per bundle. ms/op is wall time, which the disk's
// sync latency dominates; cpu-ms/op is the process's user and system time
// per bundle.
func BenchmarkFSApplyBundle100(b *testing.B) {
	root := b.TempDir()
	const files = 100
	body := func(gen, i int) string {
		return fmt.Sprintf("// generation %d of file %d\n", gen, i) + strings.Repeat("value := compute(input, options)\n", 60)
	}
	paths := make([]string, files)
	for i := range files {
		paths[i] = fmt.Sprintf("src/pkg%d/file%03d.go", i%10, i)
		full := filepath.Join(root, paths[i])
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body(0, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	binding, _ := json.Marshal(map[string]string{"project_dir": filepath.Join(root, ".runx")})
	p := fs.New()
	gen := 0
	b.ReportAllocs()
	cpu0 := fsBenchCPU(b)
	for b.Loop() {
		req := fs.BundleRequest{Changes: make([]fs.BundleChange, files)}
		for i := range files {
			next := body(gen+1, i)
			req.Changes[i] = fs.BundleChange{Path: paths[i], Content: &next, ExpectedDigest: fs.DigestBytes([]byte(body(gen, i)))}
		}
		in, _ := json.Marshal(req)
		res := p.Invoke(context.Background(), &plugin.Call{
			Capability: fs.CapabilityApplyBundle,
			Context: plugin.Context{
				WorkspaceRoot: root, Reach: fs.ReachWorkspace, Binding: binding,
				RunID: "bench", CallID: fmt.Sprintf("bench#bundle/%d@1", gen), Attempt: 1,
			},
			Input: in,
		})
		if res.Status != plugin.StatusOK {
			b.Fatalf("%s: %s", res.Code, res.Message)
		}
		gen++
	}
	cpu := fsBenchCPU(b) - cpu0
	b.ReportMetric(float64(b.Elapsed())/float64(time.Millisecond)/float64(b.N), "ms/op")
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
