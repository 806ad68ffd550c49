package semver

import (
	"strings"
	"testing"
)

// TestVersionOrder holds Compare to semver precedence over an ordered
// list, and Parse to refusing what is not a version.
func TestVersionOrder(t *testing.T) {
	ordered := []string{"0.1.0-alpha", "0.1.0-alpha.1", "0.1.0-alpha.beta", "0.1.0-beta.2", "0.1.0-beta.11", "0.1.0", "0.1.1", "0.2.0", "1.0.0+build.5"}
	for i := 0; i+1 < len(ordered); i++ {
		a, err := Parse(ordered[i])
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(ordered[i+1])
		if err != nil {
			t.Fatal(err)
		}
		if a.Compare(b) >= 0 || b.Compare(a) <= 0 || a.Compare(a) != 0 {
			t.Errorf("%s should sort before %s", ordered[i], ordered[i+1])
		}
	}
	for _, bad := range []string{"", "1", "1.0", "01.0.0", "1.0.0-", "a.b.c", "1.0.0.0"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) should fail", bad)
		}
	}
}

// TestCompareStrings holds Compare to semver precedence both ways round,
// build metadata not counting.
func TestCompareStrings(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"1.0.0", "1.0.1", -1}, {"1.10.0", "1.9.0", 1}, {"1.0.0-rc.1", "1.0.0", -1}, {"1.0.0-alpha", "1.0.0-alpha.1", -1}, {"1.0.0-2", "1.0.0-10", -1}, {"1.0.0-a", "1.0.0-1", 1}, {"1.0.0+x", "1.0.0+y", 0}, {"sha-abc", "1.0.0", -1}, {"sha-abc", "sha-abd", -1}} {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Compare(c.b, c.a); got != -c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// TestValid takes the full MAJOR.MINOR.PATCH form only: the shorthands
// golang.org/x/mod/semver accepts, a "v" prefix, leading zeros and empty
// identifiers are refused.
func TestValid(t *testing.T) {
	for _, ok := range []string{"0.0.0", "1.2.3", "1.0.0-rc.1", "1.0.0-alpha-1.x", "1.0.0+build.5", "1.0.0-rc.1+b"} {
		if !Valid(ok) {
			t.Errorf("Valid(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", "1", "1.2", "v1.2.3", "1.2.3.4", "01.0.0", "1.0.0-", "1.0.0-01", "1.0.0+", "1.0.0-a..b", "1.0", "1.0-rc.1", "a.b.c", "1.0.0 ", strings.Repeat("1", 130) + ".0.0"} {
		if Valid(bad) {
			t.Errorf("Valid(%q) = true", bad)
		}
	}
}
