package pathpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
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
		"../x":             "reach_outside_workspace",
		"/etc/passwd":      "reach_outside_workspace",
		"out/file":         "reach_symlink_escape",
		".git/config":      "reach_protected_dir",
		".runx/state":      "reach_protected_dir",
		".env":             "reach_secret_refused",
		".git-credentials": "reach_secret_refused",
		"keys/server.crt":  "reach_secret_refused",
		"a\x00b":           "reach_outside_workspace",
	} {
		if _, res := scope.Resolve(p); res == nil || string(res.Code) != code {
			t.Errorf("Resolve(%q) = %+v, want %s", p, res, code)
		}
	}
	bad := contextFor(ws)
	bad.Reach = "everywhere"
	if _, res := NewScope(bad); res == nil || res.Code != errcode.ReachUnknown {
		t.Errorf("unknown reach: %+v", res)
	}
	bad = contextFor("relative/ws")
	if _, res := NewScope(bad); res == nil || res.Code != errcode.ReachWorkspaceMissing {
		t.Errorf("relative workspace: %+v", res)
	}
}

func contextFor(ws string) plugin.Context {
	return plugin.Context{WorkspaceRoot: ws, Reach: ReachWorkspace}
}

// runx's own places, named in the call's protected roots, are refused at
// either reach however a path names them: directly, absolutely, through
// ../, through a symlinked directory and through a dangling link.
func TestProtectedRootsRefused(t *testing.T) {
	ws := t.TempDir()
	home := filepath.Join(ws, "home")
	for _, f := range []string{"home/secrets/x", "home/keys/ed25519.key", "a.txt"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"peek": "home/secrets", "plant.pub": "home/keys/trusted/forged.pub"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, reach := range []string{ReachWorkspace, ReachInputs} {
		c := contextFor(ws)
		c.Reach = reach
		c.ProtectedRoots = []string{home}
		scope, res := NewScope(c)
		if res != nil {
			t.Fatal(res.Message)
		}
		for _, p := range []string{"home", "home/secrets/x", "home/keys/trusted/forged.pub", filepath.Join(home, "secrets/x"),
			"a/../home/secrets/x", "peek/x", "plant.pub"} {
			if _, res := scope.Resolve(p); res == nil || res.Code != errcode.ReachProtectedDir {
				t.Errorf("%s: Resolve(%q) = %+v, want %s", reach, p, res, errcode.ReachProtectedDir)
			}
		}
		if _, res := scope.Resolve("a.txt"); res != nil {
			t.Errorf("%s: a.txt refused: %+v", reach, res)
		}
		if !scope.Protected(filepath.Join(home, "keys")) || scope.Protected(filepath.Join(ws, "a.txt")) {
			t.Errorf("%s: Protected disagrees with Resolve", reach)
		}
	}
	if _, res := NewScope(plugin.Context{WorkspaceRoot: ws, ProtectedRoots: []string{"home"}}); res == nil {
		t.Error("a relative protected root was taken")
	}
}

// A file is a secret by what it holds, whatever it is called: a private key
// pasted into notes.txt, AWS credentials or a service-account key saved
// under another name. Text that only talks about them is not.
func TestSecretByContent(t *testing.T) {
	ws := t.TempDir()
	files := map[string]struct {
		content string
		pattern string
	}{
		"notes.txt":      {"my key:\n" + testKey, PatternPrivateKeyContent},
		"rsa.txt":        {"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", PatternPrivateKeyContent},
		"backup.ini":     {"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", PatternAWSCredentials},
		"deploy.json":    {`{"type": "service_account", "project_id": "p", "private_key_id": "1", "private_key": "x"}`, PatternServiceAccountKey},
		"putty.txt":      {"PuTTY-User-Key-File-3: ssh-ed25519\n", PatternPrivateKeyContent},
		"docs.md":        {"A key file starts with a line ending PRIVATE KEY-----.\nSet aws_secret_access_key in ~/.aws/credentials.\n", ""},
		"sa-schema.json": {`{"type": "service_account", "fields": ["client_email"]}`, ""},
	}
	for name, f := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(f.content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	scope, res := NewScope(contextFor(ws))
	if res != nil {
		t.Fatal(res.Message)
	}
	for name, f := range files {
		if got := SecretContent([]byte(f.content)); got != f.pattern {
			t.Errorf("SecretContent(%s) = %q, want %q", name, got, f.pattern)
		}
		_, res := scope.Resolve(name)
		switch {
		case f.pattern == "" && res != nil:
			t.Errorf("%s refused: %+v", name, res)
		case f.pattern != "" && (res == nil || res.Code != errcode.ReachSecretRefused || !strings.Contains(res.Message, f.pattern)):
			t.Errorf("%s: %+v, want %s naming %q", name, res, errcode.ReachSecretRefused, f.pattern)
		}
	}
}

// AWS credentials are recognised wherever a line assigns one to its name,
// in the forms files carry them, and the session token beside the keys;
// text that names them without a value of their form is not a secret.
func TestAWSCredentialForms(t *testing.T) {
	const (
		keyID  = "AKIAIOSFODNN7EXAMPLE"
		secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	)
	token := strings.Repeat("IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+", 3)
	for text, want := range map[string]bool{
		// The shared credentials file, at a line's start (as before).
		"[default]\naws_access_key_id = " + keyID + "\n":    true,
		"[default]\naws_secret_access_key=" + secret + "\n": true,
		// Anywhere in a line.
		"export AWS_SECRET_ACCESS_KEY=" + secret + "\n":            true,
		"env: {AWS_ACCESS_KEY_ID: \"" + keyID + "\"}\n":            true,
		`os.Setenv("AWS_SECRET_ACCESS_KEY", "` + secret + `")`:     true,
		`'aws_secret_access_key' => '` + secret + `',`:             true,
		"s3 = S3(aws_secret_access_key='" + secret + "')\n":        true,
		`{"Credentials": {"AccessKeyId": "ASIAIOSFODNN7EXAMPLE"}}`: true,
		`{"Credentials": {"SecretAccessKey": "` + secret + `"}}`:   true,
		// Session and security tokens.
		"aws_session_token = " + token + "\n":       true,
		"export AWS_SECURITY_TOKEN=" + token + "\n": true,
		`{"SessionToken": "` + token + `"}`:         true,
		// Names without a value of their form, or other names.
		"Set aws_secret_access_key in ~/.aws/credentials.\n":              false,
		"aws_secret_access_key = ${SECRET}\n":                             false,
		"aws_secret_access_key = YOUR_SECRET_ACCESS_KEY\n":                false,
		"aws_session_token = short\n":                                     false,
		"aws_access_key_id = AKIA-EXAMPLE\n":                              false,
		"secret_access_key_hint = " + secret + "\n":                       false,
		"the key id " + keyID + " alone names nothing secret\n":           false,
		"if err != nil { return fmt.Errorf(\"access denied: %w\", err) }": false,
	} {
		got := SecretContent([]byte(text)) == PatternAWSCredentials
		if got != want {
			t.Errorf("SecretContent(%q) is AWS credentials: %v, want %v", text, got, want)
		}
	}
}

// BenchmarkSecretContentSource is the content check on an ordinary 3 KiB
// source file that names access and sessions (so every cheap substring
// test passes and the AWS rule's expression runs): what a search or a
// listing pays per such file.
func BenchmarkSecretContentSource(b *testing.B) {
	line := "\tsession := open(accessToken, options) // check the caller's access first\n"
	content := []byte("package p\n\n" + strings.Repeat(line, 40))
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if SecretContent(content) != "" {
			b.Fatal("ordinary source taken for a secret")
		}
	}
}
