package guard

import "testing"

// Exclusivity is proven from syntax only, conservatively: any pair runx
// cannot prove never both hold counts as overlapping.
func TestGuardsExclusive(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`input.mode == "a"`, `input.mode == "b"`, true},
		{`input.mode == "a"`, `"b" == input.mode`, true},
		{`input.mode == "a"`, `input.mode != "a"`, true},
		{`input.fast`, `!input.fast`, true},
		{`!(input.n > 3)`, `input.n > 3`, true},
		{`input.ok && input.mode == "a"`, `input.mode == "b" && input.x`, true},
		{`size(steps.s.items) > 0`, `!(size(steps.s.items) > 0)`, true},
		{`input.n == 1`, `input.n == 2`, true},
		{`input.n == 1`, `input.n == 1.0`, false}, // CEL: 1 == 1.0
		{`input.n == 1`, `input.n == 1u`, false},
		{`input.mode == "a"`, `input.mode == "a"`, false},
		{`input.mode == "a"`, `input.mode != "b"`, false},
		{`input.mode == "a"`, `input.other == "b"`, false},
		{`input.fast`, `input.slow`, false},
		{`input.fast || input.mode == "a"`, `input.mode == "b"`, false},
		{`input.fast`, ``, false},
		{``, ``, false},
		{`input.mode == "a"`, `input.mode ==`, false}, // does not parse
	} {
		if got := Exclusive(c.a, c.b); got != c.want {
			t.Errorf("Exclusive(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
