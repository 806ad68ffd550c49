package semver

import "testing"

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
