package fs

import (
	"github.com/runxhq/runx/sdk/pathpolicy"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

func TestReachRefusals(t *testing.T) {
	outside := workspace(t, map[string]string{"elsewhere.txt": "outside"})
	root := workspace(t, map[string]string{
		"ok.txt": "fine", ".git/config": "[core]", ".runx/state": "x", "sub/.git/HEAD": "ref",
	})
	must(t, os.Symlink(filepath.Join(outside, "elsewhere.txt"), filepath.Join(root, "escape.txt")))
	must(t, os.Symlink(outside, filepath.Join(root, "escape-dir")))
	must(t, os.Symlink(filepath.Join(outside, "not-yet"), filepath.Join(root, "dangling")))
	must(t, os.Symlink(".git", filepath.Join(root, "gitlink")))
	must(t, os.Symlink("loop-b", filepath.Join(root, "loop-a")))
	must(t, os.Symlink("loop-a", filepath.Join(root, "loop-b")))
	for name, tc := range map[string]struct {
		path, code string
	}{
		"parent climb":            {"../x", "reach_outside_workspace"},
		"absolute outside":        {filepath.Join(outside, "elsewhere.txt"), "reach_outside_workspace"},
		"absolute system file":    {"/etc/passwd", "reach_outside_workspace"},
		"symlink to a file":       {"escape.txt", "reach_symlink_escape"},
		"symlink to a directory":  {"escape-dir/elsewhere.txt", "reach_symlink_escape"},
		"dangling symlink":        {"dangling", "reach_symlink_escape"},
		"inside .git":             {".git/config", "reach_protected_dir"},
		".git itself":             {".git", "reach_protected_dir"},
		"inside .runx":            {".runx/state", "reach_protected_dir"},
		"nested worktree's .git":  {"sub/.git/HEAD", "reach_protected_dir"},
		"symlink into .git":       {"gitlink/config", "reach_protected_dir"},
		"case-folded .GIT":        {".GIT/config", "reach_protected_dir"},
		"dot-dot back into .git":  {"sub/../.git/config", "reach_protected_dir"},
		"NUL in path":             {"ok\x00.txt", "reach_outside_workspace"},
		"climb hidden in the way": {"sub/../../x", "reach_outside_workspace"},
		"symlink loop":            {"loop-a/x", "reach_unresolvable"},
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, call(t, wsContext(root), CapabilityRead, ReadRequest{Path: tc.path}, nil), errcode.Code(tc.code))
		})
	}
}

func TestScopeRefusals(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a"})
	wantCode(t, call(t, plugin.Context{Reach: ReachWorkspace}, CapabilityRead, ReadRequest{Path: "a.txt"}, nil), errcode.ReachWorkspaceMissing)
	wantCode(t, call(t, plugin.Context{WorkspaceRoot: "relative", Reach: ReachWorkspace}, CapabilityRead, ReadRequest{Path: "a.txt"}, nil), errcode.ReachWorkspaceMissing)
	wantCode(t, call(t, plugin.Context{WorkspaceRoot: root, Reach: "everywhere"}, CapabilityRead, ReadRequest{Path: "a.txt"}, nil), errcode.ReachUnknown)
	// An absent reach is the narrower one.
	outside := workspace(t, map[string]string{"b.txt": "b"})
	wantCode(t, call(t, plugin.Context{WorkspaceRoot: root, ReachRoots: []string{outside}}, CapabilityRead,
		ReadRequest{Path: filepath.Join(outside, "b.txt")}, nil), errcode.ReachOutsideWorkspace)
}

func TestSecretsAreRefusedToRead(t *testing.T) {
	files := map[string]string{
		".env": "K=v", ".env.local": "K=v", "prod.env": "K=v", ".envrc": "export K=v", "config/.ENV.production": "K=v",
		"id_rsa": testPrivateKey, "id_ed25519": testPrivateKey, "server.key": "k", "bundle.p12": "x", "store.pfx": "x",
		"keys.jks": "x", "tls.pem": testPrivateKey, "chain.crt": testCertificate + testPrivateKey, "server-key.pem": testCertificate,
		".npmrc": "//registry/:_authToken=x", ".netrc": "machine m", ".pgpass": "h:5432:*:u:p", ".git-credentials": "https://u:p@h",
	}
	root := workspace(t, files)
	for p := range files {
		t.Run(p, func(t *testing.T) {
			res := call(t, wsContext(root), CapabilityRead, ReadRequest{Path: p}, nil)
			wantCode(t, res, errcode.ReachSecretRefused)
			if strings.Contains(res.Message, "K=v") || strings.Contains(res.Message, "PRIVATE") {
				t.Fatalf("refusal leaks content: %s", res.Message)
			}
		})
	}
}

func TestSecretRefusalNamesThePattern(t *testing.T) {
	root := workspace(t, map[string]string{".env.local": "K=v", "tls.pem": testPrivateKey})
	for p, pattern := range map[string]string{".env.local": pathpolicy.PatternEnvVariant, "tls.pem": PatternPrivateKeyPEM} {
		res := call(t, wsContext(root), CapabilityRead, ReadRequest{Path: p}, nil)
		if !strings.Contains(res.Message, pattern) {
			t.Fatalf("%s: refusal %q does not name %q", p, res.Message, pattern)
		}
	}
}

func TestTemplatesAndPublicFilesAreNotSecrets(t *testing.T) {
	files := map[string]string{
		".env.example": "K=", ".env.sample": "K=", ".env.template": "K=", "config.env.example": "K=",
		"id_rsa.pub": "ssh-rsa AAAA", "ca.pem": testCertificate, "chain.crt": testCertificate,
		"environment.ts": "x", "env.go": "x", "keyboard.go": "x",
	}
	root := workspace(t, files)
	for p := range files {
		mustOK(t, call(t, wsContext(root), CapabilityRead, ReadRequest{Path: p}, nil))
	}
}

func TestSymlinkToASecretIsRefused(t *testing.T) {
	root := workspace(t, map[string]string{".env": "K=v"})
	must(t, os.Symlink(".env", filepath.Join(root, "innocent.txt")))
	wantCode(t, call(t, wsContext(root), CapabilityRead, ReadRequest{Path: "innocent.txt"}, nil), errcode.ReachSecretRefused)
}

func TestSymlinkInsideTheWorkspaceIsFollowed(t *testing.T) {
	root := workspace(t, map[string]string{"real/a.txt": "hello"})
	must(t, os.Symlink("real", filepath.Join(root, "alias")))
	var resp ReadResponse
	mustOK(t, call(t, wsContext(root), CapabilityRead, ReadRequest{Path: "alias/a.txt"}, &resp))
	if resp.Content != "hello" || resp.Path != "alias/a.txt" {
		t.Fatalf("got %+v", resp)
	}
}

func TestWorkspaceReachedThroughASymlink(t *testing.T) {
	real := workspace(t, map[string]string{"a.txt": "a"})
	link := filepath.Join(t.TempDir(), "ws")
	must(t, os.Symlink(real, link))
	var resp ReadResponse
	mustOK(t, call(t, wsContext(link), CapabilityRead, ReadRequest{Path: filepath.Join(link, "a.txt")}, &resp))
	mustOK(t, call(t, wsContext(link), CapabilityRead, ReadRequest{Path: filepath.Join(real, "a.txt")}, &resp))
	if resp.Path != "a.txt" {
		t.Fatalf("an absolute path in the workspace is shown workspace-relative, got %q", resp.Path)
	}
}

func TestReachInputsAddsTheInputRoots(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a"})
	other := workspace(t, map[string]string{"b.txt": "b", ".git/config": "[core]", ".env": "K=v"})
	stranger := workspace(t, map[string]string{"c.txt": "c"})
	pc := plugin.Context{WorkspaceRoot: root, Reach: ReachInputs, ReachRoots: []string{other}}
	var resp ReadResponse
	mustOK(t, call(t, pc, CapabilityRead, ReadRequest{Path: filepath.Join(other, "b.txt")}, &resp))
	if resp.Path != filepath.Join(other, "b.txt") {
		t.Fatalf("a path outside the workspace is shown absolute, got %q", resp.Path)
	}
	mustOK(t, call(t, pc, CapabilityRead, ReadRequest{Path: "a.txt"}, nil))
	// Under inputs a request may name a place inside .git; secrets stay shut.
	mustOK(t, call(t, pc, CapabilityRead, ReadRequest{Path: filepath.Join(other, ".git/config")}, nil))
	wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: filepath.Join(other, ".env")}, nil), errcode.ReachSecretRefused)
	wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: filepath.Join(stranger, "c.txt")}, nil), errcode.ReachOutsideWorkspace)
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]string{
		".env": pathpolicy.PatternEnv, ".env.local": pathpolicy.PatternEnvVariant, "x.env": pathpolicy.PatternEnvSuffix, ".ENV": pathpolicy.PatternEnv,
		".env.example": "", ".env.sample": "", ".env.template": "", ".env.example.local": "",
		"id_rsa": "id_rsa", "id_rsa.pub": "", "a.key": "*.key", "a.p12": "*.p12", "a.pfx": "*.pfx",
		"private.pem": pathpolicy.PatternPEMKey, "cert.pem": "", ".npmrc": pathpolicy.PatternNpmrc, "_netrc": pathpolicy.PatternNetrcWin,
		"dir/.pgpass": pathpolicy.PatternPgpass, "README.md": "", ".key": "",
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %q, want %q", name, got, want)
		}
	}
	for rel, want := range map[string]string{".git/config": PatternGitDir, "a/.runx/x": PatternRunxDir, "src/.env": pathpolicy.PatternEnv, "src/a.go": ""} {
		if got := SecretPath(rel); got != want {
			t.Errorf("SecretPath(%q) = %q, want %q", rel, got, want)
		}
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
