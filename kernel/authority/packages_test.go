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
