package jsontext

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand"
	"testing"
)

// largeText is n bytes of log-like text with every byte value that needs an
// escape, multi-byte characters cut anywhere, and invalid bytes.
func largeText(n int) []byte {
	r := rand.New(rand.NewSource(int64(n)))
	alphabet := [][]byte{[]byte("GET /a 200 "), []byte("\n"), []byte("\""), []byte("\\"), []byte("\x01"), []byte("\t"), []byte("é日"), []byte("\u2028")}
	var b bytes.Buffer
	for b.Len() < n {
		b.Write(alphabet[r.Intn(len(alphabet))])
	}
	return b.Bytes()[:n]
}

// Around and past the split threshold, at lengths that are and are not
// multiples of three, the pieces join into exactly one pass's encoding.
func TestParallelEncodingsMatchOnePass(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000, parallelMin - 1, parallelMin, parallelMin + 1, parallelMin + 2, 3*parallelMin + 7, 4<<20 + 4} {
		text := largeText(n)
		prefix := []byte(`{"data":`)
		if got, want := AppendBase64(bytes.Clone(prefix), text), base64.StdEncoding.AppendEncode(bytes.Clone(prefix), text); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: base64 in pieces differs from one pass", n)
		}
		got := AppendStringParallel(bytes.Clone(prefix), text)
		if want := AppendString(bytes.Clone(prefix), text); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: escaping in pieces differs from one pass", n)
		}
		for _, cuts := range [][]int{{1}, {n / 3, n / 2}, {7, 8, 9, n - 1}} {
			var pieces [][]byte
			last := 0
			for _, c := range cuts {
				if c >= last && c <= n {
					pieces, last = append(pieces, text[last:c]), c
				}
			}
			pieces = append(pieces, text[last:])
			if again := AppendStringParallel(bytes.Clone(prefix), pieces...); !bytes.Equal(again, got) {
				t.Fatalf("%d bytes cut at %v: differs from one pass", n, cuts)
			}
		}
		var back string
		if err := json.Unmarshal(got[len(prefix):], &back); err != nil || (back != string(text) && bytes.Equal(text, bytes.ToValidUTF8(text, nil))) {
			t.Fatalf("%d bytes: does not decode back (%v)", n, err)
		}
	}
}

func BenchmarkAppendString4MiB(b *testing.B) {
	text := bytes.Repeat([]byte("GET /assets/app.js 200 1834 bytes in 0.42 ms from 127.0.0.1 keep-alive\n"), 4<<20/73)
	dst := make([]byte, 0, len(text)*5/4)
	b.SetBytes(int64(len(text)))
	for _, tc := range []struct {
		name string
		f    func([]byte, []byte) []byte
	}{{"one", func(d, t []byte) []byte { return AppendString(d, t) }}, {"pieces", func(d, t []byte) []byte { return AppendStringParallel(d, t) }}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				dst = tc.f(dst[:0], text)
			}
		})
	}
}

func BenchmarkAppendBase64_4MiB(b *testing.B) {
	text := bytes.Repeat([]byte("GET /assets/app.js 200 1834 bytes in 0.42 ms from 127.0.0.1 keep-alive\n"), 4<<20/73)
	dst := make([]byte, 0, len(text)*3/2)
	b.SetBytes(int64(len(text)))
	b.Run("one", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dst = base64.StdEncoding.AppendEncode(dst[:0], text)
		}
	})
	b.Run("pieces", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dst = AppendBase64(dst[:0], text)
		}
	})
}

// The six-bytes-a-step encoder writes what encoding/base64 writes, at every
// length around its step and of random bytes.
func TestEncodeBase64MatchesEncodingBase64(t *testing.T) {
	r := rand.New(rand.NewSource(64))
	for n := 0; n < 300; n++ {
		src := make([]byte, n)
		r.Read(src)
		want := base64.StdEncoding.EncodeToString(src)
		got := make([]byte, base64.StdEncoding.EncodedLen(n))
		encodeBase64(got, src)
		if string(got) != want {
			t.Fatalf("%d bytes: %q, want %q", n, got, want)
		}
	}
}
