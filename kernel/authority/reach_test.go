package authority

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestCheckPath(t *testing.T) {
	const ws = "/work/repo"
	inputs := []string{"/data/other", "/srv/shared"}
	tests := []struct {
		name  string
		reach Reach
		path  string
		code  errcode.Code
		rule  string // a part the rule must hold
	}{
		{"the workspace root", ReachWorkspace, "/work/repo", "", ""},
		{"a file in the workspace", ReachWorkspace, "/work/repo/src/main.go", "", ""},
		{"a sibling sharing a prefix", ReachWorkspace, "/work/repo2/a", errcode.ReachOutsideWorkspace, "reach workspace"},
		{"the parent", ReachWorkspace, "/work", errcode.ReachOutsideWorkspace, "reach workspace"},
		{"an input root under workspace reach", ReachWorkspace, "/data/other/x", errcode.ReachOutsideWorkspace, "reach workspace"},
		{"the filesystem root", ReachWorkspace, "/", errcode.ReachOutsideWorkspace, "reach workspace"},
		{".git", ReachWorkspace, "/work/repo/.git", errcode.ReachProtectedDir, "protected directory .git/"},
		{"inside .git", ReachWorkspace, "/work/repo/.git/config", errcode.ReachProtectedDir, "protected directory .git/"},
		{"a nested worktree's .git", ReachWorkspace, "/work/repo/vendor/x/.git/HEAD", errcode.ReachProtectedDir, ".git/"},
		{"inside .runx", ReachWorkspace, "/work/repo/.runx/state.sqlite", errcode.ReachProtectedDir, "protected directory .runx/"},
		{"a secret", ReachWorkspace, "/work/repo/.env", errcode.ReachSecretRefused, "secret pattern .env"},
		{"a nested secret", ReachWorkspace, "/work/repo/deploy/tls/server.key", errcode.ReachSecretRefused, "secret pattern *.key"},
		{"an env template", ReachWorkspace, "/work/repo/.env.example", "", ""},
		{"a file named like .git", ReachWorkspace, "/work/repo/.gitignore", "", ""},

		{"workspace under inputs", ReachInputs, "/work/repo/src", "", ""},
		{"an input root", ReachInputs, "/data/other", "", ""},
		{"inside an input root", ReachInputs, "/srv/shared/docs/a.md", "", ""},
		{"outside every root", ReachInputs, "/etc/passwd", errcode.ReachOutsideInputs, "reach inputs"},
		{"a sibling of an input root", ReachInputs, "/data/other2", errcode.ReachOutsideInputs, "reach inputs"},
		{".git in an input root", ReachInputs, "/data/other/.git/config", errcode.ReachProtectedDir, ".git/"},
		{"a secret in an input root", ReachInputs, "/data/other/.npmrc", errcode.ReachSecretRefused, "secret pattern .npmrc"},
		{"a secret in the workspace under inputs", ReachInputs, "/work/repo/id_rsa", errcode.ReachSecretRefused, "secret pattern id_rsa"},

		{"unset reach fails closed to workspace", ReachUnset, "/data/other/x", errcode.ReachOutsideWorkspace, "reach workspace"},

		{"a relative path", ReachWorkspace, "src/a", errcode.ReachPathInvalid, "reach workspace"},
		{"an uncleaned path", ReachWorkspace, "/work/repo/src/../../etc", errcode.ReachPathInvalid, ""},
		{"a trailing slash", ReachWorkspace, "/work/repo/src/", errcode.ReachPathInvalid, ""},
		{"a double slash", ReachWorkspace, "/work/repo//src", errcode.ReachPathInvalid, ""},
		{"a backslash", ReachWorkspace, `/work/repo\..\x`, errcode.ReachPathInvalid, ""},
		{"a NUL", ReachWorkspace, "/work/repo/a\x00b", errcode.ReachPathInvalid, ""},
		{"empty", ReachWorkspace, "", errcode.ReachPathInvalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := wantCode(t, CheckPath(tt.reach, ws, inputs, tt.path), tt.code)
			if e != nil && !strings.Contains(e.Rule, tt.rule) {
				t.Errorf("rule %q lacks %q", e.Rule, tt.rule)
			}
		})
	}
}

func TestCheckPathRoots(t *testing.T) {
	wantCode(t, CheckPath(ReachWorkspace, "work/repo", nil, "/work/repo/a"), errcode.ReachPathInvalid)
	wantCode(t, CheckPath(ReachInputs, "/work/repo", []string{"/data/x/"}, "/work/repo/a"), errcode.ReachPathInvalid)
	// A workspace at the filesystem root holds every absolute path.
	wantCode(t, CheckPath(ReachWorkspace, "/", nil, "/etc/hosts"), "")
	wantCode(t, CheckPath(ReachWorkspace, "/", nil, "/.git/x"), errcode.ReachProtectedDir)
	// Windows drive paths, as filepath.ToSlash writes them.
	wantCode(t, CheckPath(ReachWorkspace, "C:/work/repo", nil, "C:/work/repo/src/a.go"), "")
	wantCode(t, CheckPath(ReachWorkspace, "C:/work/repo", nil, "D:/work/repo/src/a.go"), errcode.ReachOutsideWorkspace)
	wantCode(t, CheckPath(ReachWorkspace, "C:/", nil, "C:/x"), "")
	wantCode(t, CheckPath(ReachWorkspace, "C:/work/repo", nil, "C:/work/repo/../x"), errcode.ReachPathInvalid)
}

func TestEffectiveCheckPathNamesTheLayer(t *testing.T) {
	eff := Narrow(Layer{Kind: LayerHost, Reach: ReachInputs}, Layer{Kind: LayerStep, Name: "read", Reach: ReachWorkspace})
	e := wantCode(t, eff.CheckPath("/w", []string{"/d"}, "/d/x"), errcode.ReachOutsideWorkspace)
	if !strings.Contains(e.Rule, `reach workspace (step "read")`) {
		t.Errorf("rule %q does not name the step", e.Rule)
	}
	wantCode(t, Narrow().CheckPath("/w", []string{"/d"}, "/d/x"), "")
}

// TestCheckPathAllowedDoesNotAllocate: listings check every entry, so an
// allowed path must cost no allocation.
func TestCheckPathAllowedDoesNotAllocate(t *testing.T) {
	eff := Narrow(Layer{Kind: LayerHost, Reach: ReachWorkspace})
	roots := []string{"/data"}
	allocs := testing.AllocsPerRun(100, func() {
		if CheckPath(ReachInputs, "/w", roots, "/data/src/deep/file.go") != nil ||
			eff.CheckPath("/w", roots, "/w/src/main.go") != nil {
			t.Fatal("refused")
		}
	})
	if allocs != 0 {
		t.Errorf("an allowed path cost %v allocations", allocs)
	}
}
