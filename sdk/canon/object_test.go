package canon

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/gowebpki/jcs"
)

// The hand-written canonical writer must produce exactly what RFC 8785 (as
// gowebpki/jcs implements it) produces for the same value.
func TestCanonicalWriterMatchesJCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aZ09 \"\\/\b\f\n\r\t\x00\x01\x1f\x7f\u00e9\u2028\u2029\U0001F600<>&~")
	randString := func() string {
		n := rng.IntN(12)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	for i := 0; i < 500; i++ {
		obj := Object{
			"version":    int64(rng.IntN(1 << 40)),
			"event_ref":  randString(),
			"has_more":   rng.IntN(2) == 0,
			"cursor":     nil,
			"redactions": []Object{{"path": randString(), "class": "secret", "event_ref": randString()}},
			"list":       []any{randString(), int64(-5), Object{"b": randString(), "a": 1}},
		}
		asJSON, err := json.Marshal(toPlain(obj))
		if err != nil {
			t.Fatal(err)
		}
		want, err := jcs.Transform(asJSON)
		if err != nil {
			t.Fatal(err)
		}
		if got := obj.Bytes(); string(got) != string(want) {
			t.Fatalf("canonical writer differs from JCS:\n got %s\nwant %s", got, want)
		}
		if obj.Digest() != DigestBytes(want) {
			t.Fatal("digest differs from the digest of the canonical bytes")
		}
	}
}

func toPlain(v any) any {
	switch x := v.(type) {
	case Object:
		m := map[string]any{}
		for k, e := range x {
			m[k] = toPlain(e)
		}
		return m
	case []Object:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toPlain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toPlain(e)
		}
		return out
	}
	return v
}
