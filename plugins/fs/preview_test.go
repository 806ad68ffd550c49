package fs

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

// previewOf is the change set the Preview RPC answers for one change tool's
// call; the call must be previewable.
func previewOf(t *testing.T, root, capability string, input any) *plugin.ChangeSet {
	t.Helper()
	cs, res := changeSetOf(t, root, capability, input)
	mustOK(t, res)
	return cs
}

func TestPreviewShowsExactlyWhatWouldExecute(t *testing.T) {
	lines := make([]string, 0, 400)
	for i := range 400 {
		lines = append(lines, "line "+strings.Repeat("x", i%7))
	}
	long := strings.Join(lines, "\n") + "\n"
	root := workspace(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "long.txt": long, "gone.txt": "bye\n"})
	before := snapshot(t, root)

	resp := previewOf(t, root, CapabilityEdit, EditRequest{Path: "a.go", Edits: []Edit{{Old: "func A() {}", New: "func A() int { return 1 }"}}})
	f := resp.Changes[0]
	wantDiff := "diff a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package a\n \n-func A() {}\n+func A() int { return 1 }\n"
	if f.Path != "a.go" || f.Op != plugin.ChangeModify || f.Diff != wantDiff ||
		f.BeforeDigest != digest("package a\n\nfunc A() {}\n") || f.AfterDigest != digest("package a\n\nfunc A() int { return 1 }\n") {
		t.Fatalf("got %+v\n%s", f, f.Diff)
	}

	// Every changed line of a large rewrite is in the diff: nothing is cut.
	rewritten := strings.ReplaceAll(long, "line", "LINE")
	resp = previewOf(t, root, CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{
		{Path: "long.txt", Content: &rewritten, ExpectedDigest: digest(long)},
		{Path: "new/b.txt", Content: str("one\ntwo"), Create: true},
		{Path: "gone.txt", ExpectedDigest: digest("bye\n")},
	}})
	if got := strings.Count(resp.Changes[0].Diff, "\n-line"); got != 400 {
		t.Fatalf("diff removes %d of 400 lines", got)
	}
	if got := strings.Count(resp.Changes[0].Diff, "\n+LINE"); got != 400 {
		t.Fatalf("diff adds %d of 400 lines", got)
	}
	if d := resp.Changes[1].Diff; resp.Changes[1].Op != plugin.ChangeCreate || resp.Changes[1].BeforeDigest != "" ||
		d != "diff /dev/null b/new/b.txt\n--- /dev/null\n+++ b/new/b.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n" {
		t.Fatalf("create diff %q", d)
	}
	if d := resp.Changes[2].Diff; resp.Changes[2].Op != plugin.ChangeDelete || resp.Changes[2].AfterDigest != "" || !strings.HasSuffix(d, "+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n") {
		t.Fatalf("delete diff %q", d)
	}

	resp = previewOf(t, root, CapabilityWrite, WriteRequest{Path: "empty.txt", Content: str("")})
	if resp.Changes[0].Diff != "diff /dev/null b/empty.txt\n--- /dev/null\n+++ b/empty.txt\n" {
		t.Fatalf("empty create diff %q", resp.Changes[0].Diff)
	}
	sameTree(t, before, snapshot(t, root))
}

// A binary file is named as such in the diff, its digests exact.
func TestPreviewNamesBinaryContent(t *testing.T) {
	root := workspace(t, map[string]string{"bin.dat": "a\x00"})
	cs := previewOf(t, root, CapabilityWrite, WriteRequest{Path: "bin.dat", Content: str("text"), ExpectedDigest: digest("a\x00")})
	if cs.Changes[0].Diff != "Binary files a/bin.dat and b/bin.dat differ\n" || cs.Changes[0].BeforeDigest != digest("a\x00") {
		t.Fatalf("got %+v", cs.Changes[0])
	}
}
