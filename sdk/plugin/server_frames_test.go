package plugin

import (
	"bytes"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

// frames records what sendResult puts on an Invoke stream.
type frames struct {
	grpc.ServerStream
	sent []*pluginv1.InvokeResponse
}

func (f *frames) Send(r *pluginv1.InvokeResponse) error { f.sent = append(f.sent, r); return nil }

func (f *frames) Recv() (*pluginv1.InvokeRequest, error) { return nil, nil }

func TestSendResultFrames(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2*MaxChunkBytes+5)
	cases := []struct {
		name     string
		res      *Result
		frames   int
		withLast bool // the last chunk rides in the result's frame
	}{
		{"empty answer is one frame", OK(nil, nil), 1, false},
		{"small answer is one frame", OK([]byte(`{"ok":true}`), nil), 1, true},
		{"exactly one chunk is one frame", OK(big[:MaxChunkBytes], nil), 1, true},
		{"large answer: full chunks, then the rest with the result", OK(big, nil), 3, true},
		{"large evidence keeps every chunk in its own frame", OK(big, []byte(`"`+strings.Repeat("e", MaxMessageBytes-MaxChunkBytes)+`"`)), 4, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f frames
			if err := sendResult(&f, c.res); err != nil {
				t.Fatal(err)
			}
			if len(f.sent) != c.frames {
				t.Fatalf("%d frames, want %d", len(f.sent), c.frames)
			}
			var got []byte
			for i, fr := range f.sent {
				if len(fr.OutputChunk) > MaxChunkBytes {
					t.Fatalf("frame %d carries %d bytes, more than a chunk", i, len(fr.OutputChunk))
				}
				if (fr.Result != nil) != (i == len(f.sent)-1) {
					t.Fatalf("frame %d of %d: result present = %v", i, len(f.sent), fr.Result != nil)
				}
				got = append(got, fr.OutputChunk...)
			}
			last := f.sent[len(f.sent)-1]
			if !bytes.Equal(got, c.res.Output) || last.Result.OutputSize != int64(len(c.res.Output)) {
				t.Fatalf("reassembled %d bytes (announced %d), want %d", len(got), last.Result.OutputSize, len(c.res.Output))
			}
			// The first of several frames announces the whole size; a
			// single frame says it in its result alone.
			if want := int64(len(c.res.Output)) * int64(min(len(f.sent)-1, 1)); f.sent[0].OutputSize != want {
				t.Fatalf("first frame announces %d bytes, want %d", f.sent[0].OutputSize, want)
			}
			if (len(last.OutputChunk) > 0) != c.withLast {
				t.Fatalf("last chunk in the result frame = %v, want %v", len(last.OutputChunk) > 0, c.withLast)
			}
		})
	}
}
