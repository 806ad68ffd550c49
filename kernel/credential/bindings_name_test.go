package credential

import (
	"regexp"
	"strings"
	"testing"
)

// ValidConnectorName holds each of at most two parts to 64 characters, as
// the counted expression it replaced did.
func TestConnectorNameRule(t *testing.T) {
	counted := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(/[A-Za-z0-9][A-Za-z0-9._-]{0,63})?$`)
	long, longer := strings.Repeat("a", 64), strings.Repeat("a", 65)
	for _, name := range []string{"", "a", "google/calendar", "google/", "/calendar", "a/b/c", "a//b", ".a", "a.b-c_d",
		long, longer, long + "/" + long, long + "/" + longer, longer + "/a", "a/" + longer, "é", "a b", "a/.b"} {
		if got, want := ValidConnectorName(name), counted.MatchString(name); got != want {
			t.Errorf("%q: %v, the counted expression %v", name, got, want)
		}
	}
}
