package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// writeTree creates files (path -> content) beneath dir. A path ending in
// "/" makes a directory.
func writeTree(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// workspace makes a temp workspace holding files and returns its root.
func workspace(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	writeTree(tb, dir, files)
	return dir
}

func wsContext(root string) plugin.Context {
	return plugin.Context{WorkspaceRoot: root, Reach: ReachWorkspace, CallID: "c1"}
}

// call invokes a capability in process and decodes an ok answer into out.
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

// listPaths lists dir recursively and returns the paths of every entry.
func listPaths(tb testing.TB, root, dir string) []string {
	tb.Helper()
	var resp ListResponse
	mustOK(tb, call(tb, wsContext(root), CapabilityList, ListRequest{Path: dir, Recursive: true, MaxEntries: ListMaxEntries}, &resp))
	paths := make([]string, 0, len(resp.Entries))
	for _, e := range resp.Entries {
		paths = append(paths, e.Path)
	}
	return paths
}

const testPrivateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
const testCertificate = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n"
