package fs

import (
	"encoding/json"
	"strings"
	"testing"
)

func previewOf(t *testing.T, root, op string, input any) *PreviewResponse {
	t.Helper()
	in, err := json.Marshal(input)
	must(t, err)
	var resp PreviewResponse
	mustOK(t, call(t, wsContext(root), CapabilityPreview, PreviewRequest{Op: op, Input: in}, &resp))
	return &resp
}

func TestPreviewShowsExactlyWhatWouldExecute(t *testing.T) {
	lines := make([]string, 0, 400)
	for i := range 400 {
		lines = append(lines, "line "+strings.Repeat("x", i%7))
	}
	long := strings.Join(lines, "\n") + "\n"
	root := workspace(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "long.txt": long, "gone.txt": "bye\n"})
	before := snapshot(t, root)

	resp := previewOf(t, root, "edit", EditRequest{Path: "a.go", Edits: []Edit{{Old: "func A() {}", New: "func A() int { return 1 }"}}})
	f := resp.Files[0]
	wantDiff := "diff a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package a\n \n-func A() {}\n+func A() int { return 1 }\n"
	if resp.Op != "edit" || f.Path != "a.go" || f.Op != OpWrite || f.Diff != wantDiff ||
		f.BeforeDigest != digest("package a\n\nfunc A() {}\n") || f.AfterDigest != digest("package a\n\nfunc A() int { return 1 }\n") {
		t.Fatalf("got %+v\n%s", f, f.Diff)
	}

	// Every changed line of a large rewrite is in the diff: nothing is cut.
	rewritten := strings.ReplaceAll(long, "line", "LINE")
	resp = previewOf(t, root, "apply_bundle", BundleRequest{Changes: []BundleChange{
		{Path: "long.txt", Content: &rewritten, ExpectedDigest: digest(long)},
		{Path: "new/b.txt", Content: str("one\ntwo"), Create: true},
		{Path: "gone.txt", Delete: true, ExpectedDigest: digest("bye\n")},
	}})
	if got := strings.Count(resp.Files[0].Diff, "\n-line"); got != 400 {
		t.Fatalf("diff removes %d of 400 lines", got)
	}
	if got := strings.Count(resp.Files[0].Diff, "\n+LINE"); got != 400 {
		t.Fatalf("diff adds %d of 400 lines", got)
	}
	if d := resp.Files[1].Diff; resp.Files[1].Op != OpCreate || resp.Files[1].BeforeDigest != "" ||
		d != "diff /dev/null b/new/b.txt\n--- /dev/null\n+++ b/new/b.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n" {
		t.Fatalf("create diff %q", d)
	}
	if d := resp.Files[2].Diff; resp.Files[2].Op != OpDelete || resp.Files[2].AfterDigest != "" || !strings.HasSuffix(d, "+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n") {
		t.Fatalf("delete diff %q", d)
	}

	resp = previewOf(t, root, "write", WriteRequest{Path: "empty.txt", Content: str("")})
	if resp.Files[0].Diff != "diff /dev/null b/empty.txt\n--- /dev/null\n+++ b/empty.txt\n" {
		t.Fatalf("empty create diff %q", resp.Files[0].Diff)
	}
	sameTree(t, before, snapshot(t, root))
}

func TestPreviewRefusesWhatTheChangeWould(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a a", "bin.dat": "a\x00"})
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	for name, tc := range map[string]struct {
		req  PreviewRequest
		code string
	}{
		"blind":         {PreviewRequest{Op: "write", Input: raw(WriteRequest{Path: "a.txt", Content: str("x")})}, CodeBlindWriteRefused},
		"ambiguous":     {PreviewRequest{Op: "edit", Input: raw(EditRequest{Path: "a.txt", Edits: []Edit{{Old: "a", New: "b"}}})}, CodeEditAmbiguous},
		"stale":         {PreviewRequest{Op: "apply_bundle", Input: raw(BundleRequest{Changes: []BundleChange{{Path: "a.txt", Delete: true, ExpectedDigest: digest("b")}}})}, CodeDigestMismatch},
		"secret":        {PreviewRequest{Op: "write", Input: raw(WriteRequest{Path: ".env", Content: str("x")})}, CodeSecretRefused},
		"unknown op":    {PreviewRequest{Op: "chmod", Input: raw(map[string]any{})}, CodeRequestInvalid},
		"no input":      {PreviewRequest{Op: "write"}, CodeRequestInvalid},
		"unknown field": {PreviewRequest{Op: "write", Input: raw(map[string]any{"path": "x", "content": "y", "mode": 7})}, CodeRequestInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, call(t, wsContext(root), CapabilityPreview, tc.req, nil), tc.code)
		})
	}
	// A binary file is named as such, its digests exact.
	var resp PreviewResponse
	mustOK(t, call(t, wsContext(root), CapabilityPreview, PreviewRequest{Op: "write",
		Input: raw(WriteRequest{Path: "bin.dat", Content: str("text"), ExpectedDigest: digest("a\x00")})}, &resp))
	if resp.Files[0].Diff != "Binary files a/bin.dat and b/bin.dat differ\n" || resp.Files[0].BeforeDigest != digest("a\x00") {
		t.Fatalf("got %+v", resp.Files[0])
	}
}
