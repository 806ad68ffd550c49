package boundedre

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// Each rule runx writes with a bound is checked against the counted
// expression it replaces, on strings around both ends of the bound and
// with characters inside and outside its classes.
func TestSameMatchesAsTheCountedExpression(t *testing.T) {
	for _, c := range []struct {
		counted string
		bounded *Regexp
	}{
		{`^[a-z][a-z0-9_-]{0,63}$`, MustCompile(`^[a-z][a-z0-9_-]*$`, 1, 64)},
		{`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}$`, MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$`, 1, 200)},
		{`^[A-Za-z0-9._-]{1,128}$`, MustCompile(`^[A-Za-z0-9._-]+$`, 1, 128)},
		{`^data\.[a-z][a-z0-9_-]{0,63}$`, MustCompile(`^data\.[a-z][a-z0-9_-]*$`, 6, 69)},
		{`^[a-zA-Z0-9_-]{1,64}$`, MustCompile(`^[a-zA-Z0-9_-]+$`, 1, 64)},
	} {
		counted := regexp.MustCompile(c.counted)
		rng := rand.New(rand.NewPCG(1, 2))
		alphabet := "az09_-.:/@+AZ é\n"
		for n := 0; n < 4000; n++ {
			size := rng.IntN(210)
			if n%2 == 0 { // near the bounds
				size = []int{0, 1, 2, 5, 6, 63, 64, 65, 68, 69, 70, 127, 128, 129, 199, 200, 201}[rng.IntN(17)]
			}
			var b strings.Builder
			if n%3 == 0 {
				b.WriteString("data.")
			}
			for b.Len() < size {
				if rng.IntN(50) == 0 {
					b.WriteByte(alphabet[rng.IntN(len(alphabet))])
				} else {
					b.WriteByte("abz09_-"[rng.IntN(7)])
				}
			}
			s := b.String()
			if got, want := c.bounded.MatchString(s), counted.MatchString(s); got != want {
				t.Fatalf("%s on %q (%d bytes): %v, the counted expression %v", c.bounded, s, len(s), got, want)
			}
		}
	}
}

func TestBadBoundsPanic(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("max below min was compiled")
		}
	}()
	MustCompile(`^a*$`, 3, 2)
}
