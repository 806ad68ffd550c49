package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/host"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// processLogBytes is the log BenchmarkProcessRead100MiB follows.
const processLogBytes = 100 << 20

// BenchmarkProcessRead100MiB follows a long-lived process's 100 MiB log by
// cursor, a 4 MiB page per call, through the real process plugin: the log
// read, the runx.process.output.v1 document, the stream through the plugin
// protocol and the host's output check. The target is over 200 MB/s.
func BenchmarkProcessRead100MiB(b *testing.B) {
	root := b.TempDir()
	project := filepath.Join(root, ".runx")
	s, err := host.NewSupervisor(host.Config{
		Discovery:   &host.Discovery{Self: filepath.Join(binDir, "runx"), FirstParty: map[string]bool{"process": true}, ProjectDir: project, HomeDir: filepath.Join(root, "home")},
		RunxVersion: "bench",
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	binding, _ := json.Marshal(map[string]any{"project_dir": project, "actor": "local"})
	calls := 0
	invoke := func(capability string, in any) json.RawMessage {
		calls++
		raw, _ := json.Marshal(in)
		res, _, err := s.Invoke(context.Background(), &sdk.Call{Capability: capability, Input: raw, Context: sdk.Context{
			RunID: "bench", StepAddress: "s", CallID: fmt.Sprintf("bench#s@%d", calls), Attempt: 1,
			WorkspaceRoot: root, Reach: "workspace", Binding: binding,
		}}, 16<<20)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != sdk.StatusOK {
			b.Fatalf("%s: %s %s", capability, res.Code, res.Message)
		}
		return res.Output
	}
	// A process that logs 100 MiB of text lines and exits.
	var started struct {
		ProcessID string `json:"process_id"`
	}
	script := fmt.Sprintf("yes 'GET /assets/app.js 200 1834 bytes in 0.42 ms from 127.0.0.1 keep-alive' | head -c %d", processLogBytes)
	json.Unmarshal(invoke("process.start", map[string]any{"command": "sh", "args": []string{"-c", script}}), &started)
	type page struct {
		Cursor  string `json:"cursor"`
		Bytes   int    `json:"bytes"`
		Running bool   `json:"running"`
	}
	for {
		var p page
		json.Unmarshal(invoke("process.read", map[string]any{"process_id": started.ProcessID, "max_bytes": 1}), &p)
		if !p.Running {
			break
		}
		time.Sleep(50 * time.Millisecond) // the writer's end, not a readiness signal of ours
	}
	if info, err := os.Stat(project); err != nil || !info.IsDir() {
		b.Fatalf("no project state: %v", err)
	}
	lat := make(latencies, 0, b.N)
	cpu0 := treeCPU(b)
	b.SetBytes(processLogBytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		total, cursor := 0, ""
		for {
			in := map[string]any{"process_id": started.ProcessID, "max_bytes": 4 << 20}
			if cursor != "" {
				in["after"] = cursor
			}
			next, n := pageHead(invoke("process.read", in))
			if n == 0 {
				break
			}
			total += n
			cursor = next
		}
		if total != processLogBytes {
			b.Fatalf("read %d bytes of %d", total, processLogBytes)
		}
		lat = append(lat, time.Since(t))
	}
	reportTreeCPU(b, processLogBytes, treeCPU(b)-cpu0)
	lat.report(b, time.Millisecond, "ms")
}

// pageHead reads a page's cursor and byte count, which lead the document,
// as a reader following the log needs them, without decoding its chunks.
func pageHead(doc []byte) (string, int) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var cursor string
	n := -1
	dec.Token()
	for cursor == "" || n < 0 {
		key, err := dec.Token()
		if err != nil {
			return cursor, n
		}
		switch key {
		case "cursor":
			dec.Decode(&cursor)
		case "bytes":
			dec.Decode(&n)
		default:
			var skip json.RawMessage
			dec.Decode(&skip)
		}
	}
	return cursor, n
}
