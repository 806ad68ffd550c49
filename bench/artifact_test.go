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

// artifactBytes is the file BenchmarkArtifactRead100MiB pages.
const artifactBytes = 100 << 20

// BenchmarkArtifactRead100MiB admits a 100 MiB log with artifact.admit and
// pages it from offset 0 to its end, 4 MiB a page, through the real plugin
// host and `runx plugin serve artifact`: the blob read, the range digest,
// the runx.artifact_page.v1 document, the stream through the plugin
// protocol and the host's output-schema check. One sub-benchmark per
// framing; the target is over 300 MB/s.
func BenchmarkArtifactRead100MiB(b *testing.B) {
	root := b.TempDir()
	project := filepath.Join(root, ".runx")
	line := []byte("GET /assets/app.js 200 1834 bytes in 0.42 ms from 127.0.0.1 keep-alive\n")
	if err := writeRepeated(filepath.Join(root, "app.log"), line, artifactBytes); err != nil {
		b.Fatal(err)
	}
	s, err := host.NewSupervisor(host.Config{
		Discovery:   &host.Discovery{Self: filepath.Join(binDir, "runx"), FirstParty: map[string]bool{"artifact": true}, ProjectDir: project, HomeDir: filepath.Join(root, "home")},
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
	var admitted struct {
		Ref   string `json:"ref"`
		Bytes int    `json:"bytes"`
	}
	json.Unmarshal(invoke("artifact.admit", map[string]any{"path": "app.log"}), &admitted)
	if admitted.Bytes != artifactBytes {
		b.Fatalf("admitted %d bytes", admitted.Bytes)
	}
	for _, encoding := range []string{"base64", "utf8"} {
		b.Run(encoding, func(b *testing.B) {
			lat := make(latencies, 0, b.N)
			cpu0 := treeCPU(b)
			b.SetBytes(artifactBytes)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				offset := 0
				for {
					next, eof := artifactPageHead(invoke("artifact.read", map[string]any{"ref": admitted.Ref, "offset": offset, "max_bytes": 4 << 20, "encoding": encoding}))
					offset = next
					if eof {
						break
					}
				}
				if offset != artifactBytes {
					b.Fatalf("paged to %d of %d", offset, artifactBytes)
				}
				lat = append(lat, time.Since(t))
			}
			reportTreeCPU(b, artifactBytes, treeCPU(b)-cpu0)
			lat.report(b, time.Millisecond, "ms")
		})
	}
}

// artifactPageHead reads a page's next_offset and eof, which lead the
// document, as a reader paging the artifact needs them.
func artifactPageHead(doc []byte) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	next, eof, seen := 0, false, 0
	dec.Token()
	for seen < 2 {
		key, err := dec.Token()
		if err != nil {
			return next, eof
		}
		switch key {
		case "next_offset":
			dec.Decode(&next)
			seen++
		case "eof":
			dec.Decode(&eof)
			seen++
		default:
			var skip json.RawMessage
			dec.Decode(&skip)
		}
	}
	return next, eof
}

// writeRepeated writes line over and over, cut at size bytes, a block at a
// time: a 100 MiB buffer made only to write the file would be returned to
// the operating system by the runtime's scavenger while the pages are
// read, and its cost counted in the benchmark's CPU time.
func writeRepeated(path string, line []byte, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	block := bytes.Repeat(line, (1<<20)/len(line))
	for left := size; left > 0; left -= len(block) {
		if _, err := f.Write(block[:min(left, len(block))]); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
