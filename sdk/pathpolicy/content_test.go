package pathpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

const testKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"

// A PEM-like file is a secret exactly when its content holds a private key.
func TestPrivateKeyContent(t *testing.T) {
	for name, want := range map[string]bool{"cert.pem": true, "chain.crt": true, "ca.CER": true, "notes.txt": false, "key.go": false} {
		if MayHoldPrivateKey(name) != want {
			t.Errorf("MayHoldPrivateKey(%q) = %v", name, !want)
		}
	}
	dir := t.TempDir()
	for file, content := range map[string]string{"key.crt": testKey, "cert.crt": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"} {
		p := filepath.Join(dir, file)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		holds, err := FileHoldsPrivateKey(p)
		if err != nil || holds != strings.Contains(content, "PRIVATE KEY") {
			t.Errorf("%s: holds %v %v", file, holds, err)
		}
	}
}

// Containment: paths outside the workspace, through a symlink out of it,
// into .git, and secrets are each refused with their own code.
func TestScopeRules(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	for _, f := range []string{"a.txt", ".env", "keys/server.crt", ".git/config", ".git-credentials"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		content := "x"
		if f == "keys/server.crt" {
			content = testKey
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	scope, res := NewScope(contextFor(ws))
	if res != nil {
		t.Fatal(res.Message)
	}
	if tgt, res := scope.Resolve("a.txt"); res != nil || tgt.Display != "a.txt" {
		t.Fatalf("a.txt: %+v %+v", tgt, res)
	}
	for p, code := range map[string]string{
		"../x":             CodeOutsideWorkspace,
		"/etc/passwd":      CodeOutsideWorkspace,
		"out/file":         CodeSymlinkEscape,
		".git/config":      CodeProtectedDir,
		".runx/state":      CodeProtectedDir,
		".env":             CodeSecretRefused,
		".git-credentials": CodeSecretRefused,
		"keys/server.crt":  CodeSecretRefused,
		"a\x00b":           CodeOutsideWorkspace,
	} {
		if _, res := scope.Resolve(p); res == nil || res.Code != code {
			t.Errorf("Resolve(%q) = %+v, want %s", p, res, code)
		}
	}
	bad := contextFor(ws)
	bad.Reach = "everywhere"
	if _, res := NewScope(bad); res == nil || res.Code != CodeReachUnknown {
		t.Errorf("unknown reach: %+v", res)
	}
	bad = contextFor("relative/ws")
	if _, res := NewScope(bad); res == nil || res.Code != CodeWorkspaceMissing {
		t.Errorf("relative workspace: %+v", res)
	}
}

func contextFor(ws string) plugin.Context {
	return plugin.Context{WorkspaceRoot: ws, Reach: ReachWorkspace}
}
