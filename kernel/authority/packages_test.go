package authority

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestPackagesCovers(t *testing.T) {
	stated := PackagesOf("acme/*", "runx/data-store", "project:*", "*/shared")
	tests := []struct {
		p    Packages
		ref  string
		want bool
	}{
		{Packages{}, "anyone/anything", true}, // not stated: no bound
		{Packages{}, "project:x", true},
		{PackagesOf(), "acme/tool", false}, // stated empty covers nothing
		{Packages{Stated: true}, "acme/tool", false},
		{stated, "acme/tool", true},
		{stated, "acme/other", true},
		{stated, "acmex/tool", false},
		{stated, "runx/data-store", true},
		{stated, "runx/hello", false},
		{stated, "project:mine", true},
		{stated, "someone/shared", true},
		{stated, "someone/unshared", false},
		{stated, "acme", false},
		{stated, "acme/", false},
		{stated, "acme/a/b", false},
		{PackagesOf("project:mine"), "project:mine", true},
		{PackagesOf("project:mine"), "project:other", false},
		{PackagesOf("project:mine"), "mine/mine", false},
		{PackagesOf("acme/*"), "project:acme", false},
		{PackagesOf("*/*"), "a/b", true},
		{PackagesOf("*/*"), "project:a", false},
		{PackagesOf("project:*"), "project:", false},
	}
	for _, tt := range tests {
		if got := tt.p.Covers(tt.ref); got != tt.want {
			t.Errorf("%+v.Covers(%q) = %v, want %v", tt.p, tt.ref, got, tt.want)
		}
	}
}

func TestPackagesCheckChain(t *testing.T) {
	p := PackagesOf("acme/*", "project:*")
	wantCode(t, p.CheckChain([]string{"project:root", "acme/child"}), "")
	e := wantCode(t, p.CheckChain([]string{"project:root", "acme/child", "evil/grandchild"}), errcode.PackageNotCovered)
	if e.Rule != "packages [acme/* project:*]" {
		t.Errorf("rule %q", e.Rule)
	}
	wantCode(t, PackagesOf().CheckChain([]string{"project:root"}), errcode.PackageNotCovered)
	wantCode(t, Packages{}.CheckChain([]string{"anything/at-all"}), "")
}

func TestPackagesJSON(t *testing.T) {
	for _, tt := range []struct {
		p    Packages
		want string
	}{
		{Packages{}, `{}`},
		{Packages{Stated: true}, `{"packages":[]}`},
		{PackagesOf(), `{"packages":[]}`},
		{PackagesOf("a/b"), `{"packages":["a/b"]}`},
	} {
		b, err := json.Marshal(Authority{Packages: tt.p})
		if err != nil || string(b) != tt.want {
			t.Errorf("%+v marshals as %s, %v; want %s", tt.p, b, err, tt.want)
		}
	}
}

// A delegation's term states its own packages bound, parsed as the
// authority's packages are, and kept (an empty list covering nothing).
func TestTermPackages(t *testing.T) {
	a := mustParse(t, `{"delegations":[{"connector":"private","terms":[{"verbs":["read"],"packages":["acme/*"]},{"verbs":["write"],"packages":[]},{"verbs":["read"]}]}]}`)
	terms := a.Delegations[0].Terms
	if !terms[0].Covers(VerbRead, []string{"acme/notes"}) || terms[0].Covers(VerbRead, []string{"project:x"}) || terms[0].Covers(VerbWrite, []string{"acme/notes"}) {
		t.Errorf("term 0 covers acme/* reads only: %+v", terms[0])
	}
	if terms[1].Covers(VerbWrite, []string{"acme/notes"}) || !terms[1].Packages.Stated {
		t.Errorf("a stated empty packages covers nothing: %+v", terms[1])
	}
	if !terms[2].Covers(VerbRead, []string{"project:x", "acme/notes"}) {
		t.Errorf("a term stating no packages bounds no package: %+v", terms[2])
	}
	_, err := Parse([]byte(`{"delegations":[{"connector":"private","terms":[{"verbs":["read"],"packages":["ac*/x"]}]}]}`))
	wantCode(t, err, errcode.AuthorityInvalidValue)
	_, err = Parse([]byte(`{"delegations":[{"connector":"private","terms":[{"verbs":["read"],"streams":["said:*"]}]}]}`))
	if err == nil {
		t.Error("a term field runx does not know is refused")
	}
}

// Narrows: a term's packages inside the run's, * covering a whole segment
// whatever stands in it; a term asking for more widens.
func TestPackagesNarrows(t *testing.T) {
	for _, c := range []struct {
		outer, inner Packages
		want         bool
	}{
		{Packages{}, PackagesOf("acme/*"), true},
		{PackagesOf("acme/*"), Packages{}, true},
		{PackagesOf("acme/*"), PackagesOf("acme/notes", "acme/*"), true},
		{PackagesOf("*/*"), PackagesOf("acme/*"), true},
		{PackagesOf("project:*"), PackagesOf("project:keep"), true},
		{PackagesOf("acme/notes"), PackagesOf("acme/*"), false},
		{PackagesOf("acme/*"), PackagesOf("project:keep"), false},
		{PackagesOf("project:keep"), PackagesOf("project:*"), false},
		{PackagesOf(), PackagesOf("acme/notes"), false},
	} {
		if got := c.outer.Narrows(c.inner); got != c.want {
			t.Errorf("%v narrows to %v: %v, want %v", c.outer, c.inner, got, c.want)
		}
	}
}
