package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/credential"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// benchCredential is upper case so the echo plugin's shout returns it as
// it is: the "echoed" case then really carries it back.
const benchCredential = "TOK-3F9A2C7E41B8D05A96C3E7F1028B4D6A"

// BenchmarkCredentialDispatch is one warm call through a real plugin
// process with the taint set at the host boundary: none (no credential
// delivered, the set empty), credential (one delivered, the answer clean:
// every answer is searched for its 17 forms) and echoed (the answer holds
// it and is scrubbed). The message is 4 KiB, a typical step output.
func BenchmarkCredentialDispatch(b *testing.B) {
	for _, c := range []struct {
		name          string
		creds, echoed bool
	}{{"none", false, false}, {"credential", true, false}, {"echoed", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			s := echoSupervisorWith(b, &credential.Taint{})
			msg := strings.Repeat("the quick brown fox jumps over the lazy dog ", 4096/44)
			if c.echoed {
				msg += benchCredential
			}
			input, _ := json.Marshal(map[string]string{"message": msg})
			call := &sdk.Call{Capability: "echo.shout", Input: input}
			if c.creds {
				call.Context.Credentials = map[string]string{"token": benchCredential}
			}
			if _, _, err := s.Invoke(context.Background(), call, 0); err != nil {
				b.Fatal(err)
			}
			lat := make(latencies, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				res, _, err := s.Invoke(context.Background(), call, 0)
				if err != nil || res.Status != sdk.StatusOK {
					b.Fatalf("%v %+v", err, res)
				}
				lat = append(lat, time.Since(t))
				if c.echoed != strings.Contains(string(res.Output), credential.Redacted) || strings.Contains(string(res.Output), benchCredential) {
					b.Fatalf("scrubbing did not hold: %.80s", res.Output)
				}
			}
			lat.report(b, time.Microsecond, "µs")
		})
	}
}

// BenchmarkCredentialBoundary is the scrubbing one step costs the kernel
// beyond the call: its output searched at the host, again where the
// journal writes it and where the seal digests it, and the envelope once
// (four ScrubJSON passes), for a 4 KiB and a 1 MiB output.
func BenchmarkCredentialBoundary(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"4KiB", 4 << 10}, {"1MiB", 1 << 20}} {
		for _, c := range []struct {
			name          string
			creds, echoed bool
		}{{"none", false, false}, {"credential", true, false}, {"echoed", true, true}} {
			b.Run(size.name+"/"+c.name, func(b *testing.B) {
				t := &credential.Taint{}
				if c.creds {
					t.Add(benchCredential)
				}
				text := strings.Repeat("the quick brown fox jumps over the lazy dog ", size.bytes/44)
				if c.echoed {
					text = text[:len(text)/2] + benchCredential + text[len(text)/2:]
				}
				doc, _ := json.Marshal(map[string]any{"result": map[string]string{"text": text}, "status": "ok"})
				env, _ := json.Marshal(map[string]any{"schema": "runx.skill_run.v1", "status": "sealed", "receipt_id": "sha256:0000", "result": json.RawMessage(doc)})
				b.SetBytes(int64(3*len(doc) + len(env)))
				lat := make(latencies, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					out := t.ScrubJSON(t.ScrubJSON(t.ScrubJSON(doc)))
					e := t.ScrubJSON(env)
					lat = append(lat, time.Since(start))
					if c.echoed && (strings.Contains(string(out), benchCredential) || strings.Contains(string(e), benchCredential)) {
						b.Fatal("not scrubbed")
					}
				}
				lat.report(b, time.Microsecond, "µs")
			})
		}
	}
}
