package canon

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// The plain writer is held to the encoding/json and JCS path: where it
// answers, Canonical and Digest give exactly the bytes and digest that
// path gives, and it leaves to that path every value it cannot write
// exactly.
func TestPlainWriterMatchesTheEncodedPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	plain := 0
	for i := 0; i < 20000; i++ {
		v := plainRandom(rng, 0)
		want, werr := encodedCanonical(v)
		got, ok := plainCanonical(v)
		d, dok := plainDigest(v)
		if ok != dok {
			t.Fatalf("Canonical and Digest disagree on whether %#v is plain", v)
		}
		if !ok {
			continue
		}
		plain++
		if werr != nil {
			t.Fatalf("the plain writer took %#v, which the encoded path refuses: %v", v, werr)
		}
		if string(got) != string(want) {
			t.Fatalf("the plain writer differs for %#v:\n got %s\nwant %s", v, got, want)
		}
		if d != DigestBytes(want) {
			t.Fatalf("the streamed digest differs for %#v", v)
		}
	}
	if plain < 5000 {
		t.Fatalf("the plain writer answered only %d of 20000 values", plain)
	}
	for _, v := range []any{1.5, math.NaN(), float64(1 << 60), int64(1 << 60), json.Number("1.0"), json.Number("01"),
		json.Number("-0"), json.Number("1e3"), map[string]any{"é": 1}, "\xff", []string{"a"}, struct{}{},
		map[string]string{"a": "b"}, []any{1.25}} {
		if _, ok := plainCanonical(v); ok {
			t.Errorf("the plain writer took %#v, which it must leave to the encoded path", v)
		}
	}
}

func plainRandom(rng *rand.Rand, depth int) any {
	alphabet := []rune("aZ09 \"\\/\b\f\n\r\t\x00\x01\x1f\x7f\u00e9\u2028\u2029\U0001F600<>&~")
	str := func() string {
		r := make([]rune, rng.IntN(10))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	switch k := rng.IntN(14); {
	case depth < 4 && k < 3:
		m := map[string]any{}
		if rng.IntN(15) == 0 {
			var none map[string]any
			return none
		}
		for range rng.IntN(5) {
			key := []string{"a", "b", "B", "a_b", "z9", "", "é", "\u00e9x", "k\"", "\n"}[rng.IntN(10)]
			m[key] = plainRandom(rng, depth+1)
		}
		return m
	case depth < 4 && k < 5:
		if rng.IntN(15) == 0 {
			var none []any
			return none
		}
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = plainRandom(rng, depth+1)
		}
		return a
	case k < 7:
		return str()
	case k == 7:
		return []any{nil, true, false}[rng.IntN(3)]
	case k == 8:
		return []int64{0, -1, 7, 1 << 53, -(1 << 53), 1<<53 + 1, 123456789012}[rng.IntN(7)]
	case k == 9:
		return []float64{0, math.Copysign(0, -1), 3, -2.5, 1e21, 1 << 53, 1<<53 + 2, 0.1}[rng.IntN(8)]
	case k == 10:
		return json.Number([]string{"0", "-7", "12", "1.5", "1e2", "9007199254740993", "-0"}[rng.IntN(7)])
	case k == 11:
		return rng.IntN(1000) - 500
	case k == 12:
		return "\xff" + str()
	}
	return str()
}

// A large plain value costs one buffer of its canonical size to encode and
// next to nothing to digest: a 64 MiB input is held once, not four times.
func TestPlainWriterHoldsALargeValueOnce(t *testing.T) {
	big := map[string]any{"message": strings.Repeat("a", 64<<20), "n": 1}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := Canonical(big)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(out))+1<<20 {
		t.Fatalf("Canonical of a %d byte value allocated %d bytes", len(out), got)
	}
	runtime.ReadMemStats(&before)
	d, err := Digest(big)
	runtime.ReadMemStats(&after)
	if err != nil || d != DigestBytes(out) {
		t.Fatalf("digest %s %v, want %s", d, err, DigestBytes(out))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Fatalf("Digest of a %d byte value allocated %d bytes", len(out), got)
	}
}

// Length measures what Canonical writes, plain or not.
func TestLengthIsTheCanonicalLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for i := 0; i < 2000; i++ {
		v := plainRandom(rng, 0)
		want, werr := Canonical(v)
		got, err := Length(v)
		if (werr != nil) != (err != nil) || werr == nil && got != len(want) {
			t.Fatalf("Length(%#v) = %d %v, Canonical is %d bytes %v", v, got, err, len(want), werr)
		}
	}
}
