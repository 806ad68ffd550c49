package readmodel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
)

// BenchmarkPayloadArtifact is what a large payload costs a pause: keep is
// a new 1 MiB payload kept and flushed (the pause's added work), shown is
// the same payload presented again (what runx history and a repeated turn
// call pay: digest, a record lookup, no write).
func BenchmarkPayloadArtifact(b *testing.B) {
	e := &Reader{ProjectDir: b.TempDir(), Scrub: func(p []byte) []byte { return p }}
	big, _ := json.Marshal(map[string]string{"body": strings.Repeat("z", 1<<20)})
	b.Run("keep1MiB", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		for i := 0; i < b.N; i++ {
			// A new payload each time: a new blob and record to flush.
			payload, _ := json.Marshal(map[string]any{"body": string(big[12 : len(big)-2]), "n": i})
			if _, err := e.PresentWaiting([]Waiting{{Request: contract.Request{Address: "a", Payload: payload}, RunID: "run_b", Local: "a"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shown1MiB", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		p := []Waiting{{Request: contract.Request{Address: "a", Payload: big}, RunID: "run_b", Local: "a"}}
		if _, err := e.PresentWaiting(p); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := e.PresentWaiting(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
