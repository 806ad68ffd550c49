package artifact

import (
	"bytes"
	"testing"
)

// BenchmarkReadPages pages a 100 MiB log in process, without the plugin
// protocol: the blob read, the range digest and the page document.
func BenchmarkReadPages(b *testing.B) {
	e := newEnv(b)
	line := []byte("GET /assets/app.js 200 1834 bytes in 0.42 ms from 127.0.0.1 keep-alive\n")
	e.write("app.log", bytes.Repeat(line, (100<<20)/len(line)+1)[:100<<20])
	d := ok[Descriptor](b, e.invoke(AdmitCapability, map[string]any{"path": "app.log"}))
	for _, encoding := range []string{"base64", "utf8"} {
		b.Run(encoding, func(b *testing.B) {
			b.SetBytes(100 << 20)
			for i := 0; i < b.N; i++ {
				for offset := int64(0); offset < d.Bytes; offset += 4 << 20 {
					res := e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "offset": offset, "max_bytes": 4 << 20, "encoding": encoding})
					if res.Status != "ok" {
						b.Fatal(res.Code, res.Message)
					}
				}
			}
		})
	}
}
