package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// longDir makes a directory under the test's own temp dir whose path is
// too long for a plugin's socket to fit under it.
func longDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A TMPDIR too long for a unix socket path no longer fails every plugin's
// start (bind: invalid argument, reported as plugin_start_failed): the
// sockets go to a private directory where their path fits, removed on
// Close.
func TestLongTMPDIRStillStartsPlugins(t *testing.T) {
	long := longDir(t)
	t.Setenv("TMPDIR", long)
	t.Setenv("XDG_RUNTIME_DIR", "")
	s := newTestSupervisor(t)
	if _, _, err := s.Invoke(context.Background(), call("testcap.echo", `{}`), 0); err != nil {
		t.Fatalf("a plugin must start under a long TMPDIR: %v", err)
	}
	if strings.HasPrefix(s.socketDir, long) || !socketFits(filepath.Dir(s.socketDir)) {
		t.Fatalf("socket directory %q leaves no room for a socket", s.socketDir)
	}
	fi, err := os.Stat(s.socketDir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory %q is %v, want private 0700", s.socketDir, fi.Mode().Perm())
	}
	s.Close()
	if _, err := os.Stat(s.socketDir); !os.IsNotExist(err) {
		t.Fatalf("Close must remove the socket directory %q: %v", s.socketDir, err)
	}
}

// When no directory leaves room for a socket, the supervisor is refused
// up front with a typed code naming the limit, not at every start.
func TestNoRoomForASocketIsRefused(t *testing.T) {
	_, err := makeSocketDir([]string{longDir(t)})
	if code := hostCode(t, err); code != string(errcode.PluginSocketPathTooLong) {
		t.Fatalf("want %s, got %s: %v", errcode.PluginSocketPathTooLong, code, err)
	}
	if !strings.Contains(err.Error(), "103-byte") {
		t.Fatalf("the refusal must name the limit: %v", err)
	}
}
