package registry

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
)

var codeOf = contract.CodeOf

// Any path checkPath accepts names a file strictly inside the package,
// whatever the bytes: joined under a root it stays below it, and it is one
// spelling of itself.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"SKILL.md", "a/b/c.txt", "../x", "a/../../b", "/abs", `a\..\b`, "a/./b", "..", ".", "", "a//b", "x:y", "a/\x00", "…/é"} {
		f.Add(s)
	}
	root := filepath.Join(string(filepath.Separator), "pkg", "root")
	f.Fuzz(func(t *testing.T, p string) {
		if checkPath(p) != nil {
			return
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		rel, err := filepath.Rel(root, full)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
			t.Fatalf("accepted %q escapes the package: %s", p, full)
		}
		if filepath.ToSlash(rel) != p {
			t.Fatalf("accepted %q is not its own clean spelling (%s)", p, rel)
		}
	})
}

// Any bytes read as a signed record are refused with a typed code or
// verify; none panics.
func FuzzParseRecord(f *testing.F) {
	s := newSigner(f)
	rec, files := s.publish(f, KindSkill, "acme", skillFiles())
	good, err := rec.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"schema":"runx.registry.record.v1","kind":"connector","files":[{"path":"../x"}],"signature":{}}`))
	f.Add([]byte(`null`))
	tr := s.trustFor(f, "acme")
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := ParseRecord(raw)
		if err != nil {
			if !strings.HasPrefix(string(codeOf(err)), "registry_") {
				t.Fatalf("untyped refusal %v", err)
			}
			return
		}
		if err := Verify(r, files, tr); err != nil && !strings.HasPrefix(string(codeOf(err)), "registry_") {
			t.Fatalf("untyped refusal %v", err)
		}
	})
}
