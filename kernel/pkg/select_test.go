package pkg

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestSplitRef(t *testing.T) {
	cases := []struct{ ref, path, method string }{
		{"skills/data-store", "skills/data-store", ""},
		{"skills/data-store#append_event", "skills/data-store", "append_event"},
		{"registry:acme/docs-build#build", "registry:acme/docs-build", "build"},
		{"./a#b#c", "./a#b", "c"},
		{"./a#", "./a", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		path, method := SplitRef(c.ref)
		if path != c.path || method != c.method {
			t.Errorf("SplitRef(%q) = %q, %q; want %q, %q", c.ref, path, method, c.path, c.method)
		}
	}
}

func TestSelectMethod(t *testing.T) {
	const step = "    steps: [{ id: a, tool: fs.read }]\n"
	several := "minimum_runx: 0.1.0\nmethods:\n  a:\n    description: A.\n" + step + "  b:\n    description: B.\n" + step
	withDefault := "minimum_runx: 0.1.0\ndefault_method: b\nmethods:\n  a:\n    description: A.\n" + step + "  b:\n    description: B.\n" + step
	sole := "minimum_runx: 0.1.0\nmethods:\n  only:\n" + step
	cases := []struct {
		name, yaml, ask, want, code string
	}{
		{"named wins over default", withDefault, "a", "a", ""},
		{"default", withDefault, "", "b", ""},
		{"sole method", sole, "", "only", ""},
		{"sole method by name", sole, "only", "only", ""},
		{"unknown name", sole, "nope", "", "method_not_found"},
		{"several, none named", several, "", "", "method_ambiguous"},
		{"several, one named", several, "b", "b", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _, err := loadProfile(t, c.yaml)
			if err != nil {
				t.Fatal(err)
			}
			m, err := p.SelectMethod(c.ask)
			if c.code != "" {
				e := wantRefusal(t, err, errcode.Code(c.code), 0, 0)
				if !strings.Contains(e.Message, "a, b") && !strings.Contains(e.Message, "only") {
					t.Errorf("refusal does not list the methods: %s", e.Message)
				}
				return
			}
			if err != nil || m.Name != c.want {
				t.Fatalf("SelectMethod(%q) = %v, %v; want %s", c.ask, m, err, c.want)
			}
		})
	}
}

func TestSelectMethodOnHandBuiltPackage(t *testing.T) {
	p := &Package{Name: "x", DefaultMethod: "gone", Methods: []*Method{{Name: "a"}, {Name: "b"}}}
	_, err := p.SelectMethod("")
	wantRefusal(t, err, errcode.MethodNotFound, 0, 0)
}
