package canon

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestIsCanonicalTable(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`[]`, true},
		{`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, true},
		{`{"b":1,"a":2}`, false},        // out of order
		{`{"a":1,"a":1}`, false},        // duplicate
		{`{"a":1 }`, false},             // whitespace
		{` {}`, false},                  // leading whitespace
		{`{}` + "\n", false},            // trailing newline
		{`1.0`, false},                  // not the shortest form
		{`1`, true},                     //
		{`1e+21`, true},                 //
		{`1e21`, false},                 // ES6 writes the sign
		{`100000000000000000000`, true}, //
		{`1e+20`, false},                //
		{`-0`, false},                   // JCS writes 0
		{`0.000001`, true},              //
		{`1e-7`, true},                  //
		{`01`, false},                   //
		{`+1`, false},                   //
		{`1E+21`, false},                //
		{`"\u00e9"`, false},             // escaped non-ASCII
		{`"é"`, true},                   //
		{`"\/"`, false},                 // needless escape
		{`"\u001f"`, true},              //
		{`"\u001F"`, false},             // upper-case hex
		{`"\u000a"`, false},             // has a short form
		{`"\n"`, true},                  //
		{`"\u0020"`, false},             // not a control character
		{"\"\x7f\"", true},              // DEL is not escaped
		{"\"\x01\"", false},             // raw control character
		{"\"\xff\"", false},             // invalid UTF-8
		{"\"\xed\xa0\x80\"", false},     // a surrogate in UTF-8
		{`{"\r":1,"1":2,"` + "\u0080" + `":3,"ö":4,"€":5,"😀":6,"` + "\ufb33" + `":7}`, true},
		{`{"` + "\ufb33" + `":1,"😀":2}`, false}, // code point order, not UTF-16
		{`{"a":1,"ab":2}`, true},
		{`{"ab":1,"a":2}`, false},
		{`truex`, false},
		{`[1,]`, false},
		{`{"a"}`, false},
		{``, false},
		{`[`, false},
		{`"abc`, false},
		{`NaN`, false},
		{`1e400`, false},
		{strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting), true},
		{strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1), false},
	}
	for _, tt := range tests {
		if got := IsCanonical([]byte(tt.in)); got != tt.want {
			t.Errorf("IsCanonical(%q) = %v, want %v", tt.in, got, tt.want)
		}
		// The table itself must agree with the reference.
		c, err := CanonicalJSON([]byte(tt.in))
		if ref := err == nil && bytes.Equal(c, []byte(tt.in)); ref != tt.want {
			t.Errorf("table entry %q disagrees with CanonicalJSON (%v, %v)", tt.in, ref, err)
		}
	}
}

// TestIsCanonicalAgreesWithCanonicalJSON compares the checker with the
// reference on random documents in canonical and non-canonical spellings
// and on every single-byte change of them.
func TestIsCanonicalAgreesWithCanonicalJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 400 {
		doc := []byte(randomJSON(r, 0))
		checkAgrees(t, doc)
		c, err := CanonicalJSON(doc)
		if err != nil {
			t.Fatalf("random document %q: %v", doc, err)
		}
		if !IsCanonical(c) {
			t.Fatalf("canonical output %q judged not canonical", c)
		}
		if n%4 == 0 {
			for i := range c {
				for _, b := range []byte{'"', '\\', ',', ':', '0', '9', 'e', '-', '{', '}', 'a', 0x80, 0x1f} {
					m := bytes.Clone(c)
					m[i] = b
					checkAgrees(t, m)
				}
			}
		}
	}
}

func checkAgrees(tb testing.TB, doc []byte) {
	tb.Helper()
	c, err := CanonicalJSON(doc)
	want := err == nil && bytes.Equal(c, doc)
	if got := IsCanonical(doc); got != want {
		tb.Fatalf("IsCanonical(%q) = %v, CanonicalJSON says %v (%v)", doc, got, want, err)
	}
}

func FuzzIsCanonical(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1e+21,"\u001f",{"":null}]`, `{"😀":1,"` + "\ufb33" + `":2}`, `-0.5`, `"\\\""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { checkAgrees(t, doc) })
}

// randomJSON writes a random value in a random, often non-canonical, spelling.
func randomJSON(r *rand.Rand, depth int) string {
	ws := func() string {
		if r.IntN(8) == 0 {
			return []string{" ", "\n", "\t", "\r\n "}[r.IntN(4)]
		}
		return ""
	}
	kind := r.IntN(7)
	if depth > 4 && kind >= 5 {
		kind = r.IntN(5)
	}
	switch kind {
	case 0:
		return []string{"true", "false", "null"}[r.IntN(3)]
	case 1, 2:
		return randomNumber(r)
	case 3, 4:
		return randomString(r)
	case 5:
		n := r.IntN(5)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = ws() + randomJSON(r, depth+1) + ws()
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		n := r.IntN(6)
		seen := map[string]bool{}
		var parts []string
		for range n {
			k := randomString(r)
			if seen[k] {
				continue
			}
			seen[k] = true
			parts = append(parts, ws()+k+ws()+":"+ws()+randomJSON(r, depth+1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

func randomNumber(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return strconv.Itoa(r.IntN(2000) - 1000)
	case 1:
		return strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)), 'g', -1, 64)
	case 2:
		return fmt.Sprintf("%d.%d", r.IntN(100), r.IntN(1000)) // may end in 0
	case 3:
		return fmt.Sprintf("%de%d", r.IntN(10), r.IntN(50)-25)
	case 4:
		return fmt.Sprintf("%dE+%d", r.IntN(10), r.IntN(30))
	default:
		s, _ := json6(r.Float64() * math.Pow(10, float64(r.IntN(40)-20)))
		return s
	}
}

func json6(f float64) (string, error) { return strconv.FormatFloat(f, 'f', -1, 64), nil }

var runePool = []rune{'a', 'b', 'z', 'A', '0', ' ', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0x01, 0x1f, 0x7f, 0x80, 'é', 'ö', '€', 0xfb33, 0xffff, 0xe000, '😀', 0x10ffff}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(5) {
		c := runePool[r.IntN(len(runePool))]
		switch {
		case c == '"' || c == '\\':
			b.WriteString(`\` + string(c))
		case c == '/' && r.IntN(2) == 0:
			b.WriteString(`\/`)
		case c < 0x20 || r.IntN(6) == 0 && c < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, c)
		case c >= 0x10000 && r.IntN(3) == 0:
			c -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
