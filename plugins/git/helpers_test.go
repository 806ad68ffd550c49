package git

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// testRepo is a real repository in a temp directory, committed to with a
// fixed identity and clock so hashes and dates are stable.
type testRepo struct {
	tb  testing.TB
	dir string
}

func newRepo(tb testing.TB) *testRepo {
	tb.Helper()
	r := &testRepo{tb: tb, dir: tb.TempDir()}
	r.run("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) run(args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=Ada Lovelace", "-c", "user.email=ada@example.com"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *testRepo) write(files map[string]string) {
	r.tb.Helper()
	for p, content := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
}

// commit stages everything and commits it, returning the new hash.
func (r *testRepo) commit(msg string, files map[string]string) string {
	r.tb.Helper()
	r.write(files)
	r.run("add", "-A")
	r.run("commit", "-q", "--allow-empty", "-m", msg)
	return r.run("rev-parse", "HEAD")
}

func wsContext(root string) plugin.Context {
	return plugin.Context{WorkspaceRoot: root, Reach: pathpolicy.ReachWorkspace, CallID: "c1"}
}

func call(tb testing.TB, pc plugin.Context, capability string, req any, out any) *plugin.Result {
	tb.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		tb.Fatal(err)
	}
	res := New().Invoke(context.Background(), &plugin.Call{Capability: capability, Context: pc, Input: in})
	if res.Status == plugin.StatusOK && out != nil {
		if err := json.Unmarshal(res.Output, out); err != nil {
			tb.Fatalf("output does not decode: %v\n%s", err, res.Output)
		}
	}
	return res
}

func mustOK(tb testing.TB, res *plugin.Result) {
	tb.Helper()
	if res.Status != plugin.StatusOK {
		tb.Fatalf("want ok, got %s %s: %s", res.Status, res.Code, res.Message)
	}
}

func wantCode(tb testing.TB, res *plugin.Result, code errcode.Code) {
	tb.Helper()
	if res.Code != code {
		tb.Fatalf("want %s, got %s %s: %s", code, res.Status, res.Code, res.Message)
	}
}

func fileList(files []FileChange) []string {
	out := []string{}
	for _, f := range files {
		s := f.Status + " " + f.Path
		if f.OldPath != "" {
			s = f.Status + " " + f.OldPath + " -> " + f.Path
		}
		out = append(out, s)
	}
	return out
}

func omittedList(o []OmittedSecret) []string {
	out := []string{}
	for _, s := range o {
		out = append(out, s.Path)
	}
	return out
}

const testPrivateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
const testCertificate = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n"
