package git

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
)

// runx's home, committed into the workspace's repository, is left out of a
// diff as a secret is (named, never shown), and no show opens it. A file
// holding a private key is refused by its content, whatever its name.
func TestRunxStateAndSecretContentOutOfGit(t *testing.T) {
	r := newRepo(t)
	a := r.commit("one", map[string]string{"a.txt": "one\n"})
	b := r.commit("two", map[string]string{"a.txt": "two\n", "home/secrets/x": "topsecret\n", "notes.txt": "key:\n" + testPrivateKey})
	pc := wsContext(r.dir)
	pc.ProtectedRoots = []string{filepath.Join(r.dir, "home")}

	var diff DiffResponse
	mustOK(t, call(t, pc, CapabilityDiff, DiffRequest{From: a, To: b}, &diff))
	if got := fileList(diff.Files); !slices.Equal(got, []string{"M a.txt"}) {
		t.Errorf("files = %v, want only a.txt", got)
	}
	omitted := map[string]string{}
	for _, o := range diff.OmittedSecrets {
		omitted[o.Path] = o.Pattern
	}
	if omitted["home/secrets/x"] != pathpolicy.PatternRunxState {
		t.Errorf("omitted = %v, want home/secrets/x as %q", omitted, pathpolicy.PatternRunxState)
	}
	if strings.Contains(diff.Patch, "topsecret") || strings.Contains(diff.Patch, "PRIVATE KEY") {
		t.Errorf("the patch shows what it omits:\n%s", diff.Patch)
	}
	wantCode(t, call(t, pc, CapabilityShow, ShowRequest{Rev: b, Path: "home/secrets/x"}, nil), errcode.ReachProtectedDir)
	wantCode(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: b, Path: "notes.txt"}, nil), errcode.ReachSecretRefused)
}
