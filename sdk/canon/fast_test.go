package canon

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// The fast path is held to gowebpki/jcs: where it answers, it answers the
// same bytes, and it never accepts what jcs refuses.
func TestFastCanonicalMatchesJCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	fast := 0
	for i := 0; i < 20000; i++ {
		doc := fastRandomJSON(rng, 0)
		if rng.IntN(20) == 0 {
			doc = fastMangle(rng, doc)
		}
		want, werr := jcs.Transform([]byte(doc))
		got, ok := fastCanonical([]byte(doc))
		if !ok {
			continue
		}
		fast++
		if werr != nil {
			t.Fatalf("fast path accepted what jcs refuses (%v): %s", werr, doc)
		}
		if string(got) != string(want) {
			t.Fatalf("fast path differs for %s:\n got %s\nwant %s", doc, got, want)
		}
	}
	if fast < 5000 {
		t.Fatalf("the fast path answered only %d of 20000 documents", fast)
	}
	for _, doc := range []string{`{"a":1,"a":2}`, `{"a":01}`, `{"a":-0}`, `{"a":1.0}`, `{"a":1e3}`, `{"a":"\u00e9"}`,
		`{"é":1}`, `{"a":1,}`, `[1,]`, `{"a":tru}`, `{"a":1} x`, `{"a":"` + "\x01" + `"}`, `{"a":1234567890123456}`} {
		if _, ok := fastCanonical([]byte(doc)); ok {
			t.Errorf("the fast path took %q, which it must leave to jcs", doc)
		}
	}
}

func fastRandomJSON(rng *rand.Rand, depth int) string {
	space := func() string { return []string{"", "", " ", "\n\t"}[rng.IntN(4)] }
	switch k := rng.IntN(10); {
	case depth < 4 && k < 3:
		n := rng.IntN(5)
		var members []string
		for range n {
			members = append(members, space()+fastRandomKey(rng)+space()+":"+space()+fastRandomJSON(rng, depth+1))
		}
		return "{" + strings.Join(members, ",") + space() + "}"
	case depth < 4 && k < 5:
		n := rng.IntN(4)
		var items []string
		for range n {
			items = append(items, space()+fastRandomJSON(rng, depth+1))
		}
		return "[" + strings.Join(items, ",") + "]"
	case k < 7:
		return fastRandomString(rng)
	case k < 9:
		return []string{"0", "7", "-12", "123456789012345", "1234567890123456", "1.5", "2e3", "-0", "0.1", "100"}[rng.IntN(10)]
	}
	return []string{"true", "false", "null"}[rng.IntN(3)]
}

func fastRandomKey(rng *rand.Rand) string {
	keys := []string{`"a"`, `"b"`, `"type"`, `"payload"`, `"A"`, `"_x"`, `"é"`, `"\u0061"`, `"a b"`, `"z9"`}
	return keys[rng.IntN(len(keys))]
}

func fastRandomString(rng *rand.Rand) string {
	parts := []string{"plain", "with space", "é", "😀", `\n`, `\"`, `\u00e9`, `\/`, "<>&", "\u2028"}
	var b strings.Builder
	b.WriteByte('"')
	for range rng.IntN(4) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	b.WriteByte('"')
	return b.String()
}

func fastMangle(rng *rand.Rand, doc string) string {
	if len(doc) < 2 {
		return doc + ","
	}
	i := rng.IntN(len(doc))
	return doc[:i] + fmt.Sprint([]string{",", "}", "x", "\"", ""}[rng.IntN(5)]) + doc[i+1:]
}
