package git

import (
	"slices"
	"strings"
	"testing"
)

func TestDiffAgainstTheWorkingTree(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"app.go": "package app\n", "lib.go": "package lib\n", ".env": "K=old\n"})
	r.write(map[string]string{"app.go": "package app // edited\n", ".env": "K=new-secret\n", "lib.go": "package lib // staged\n"})
	r.run("add", "lib.go")
	var resp DiffResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityDiff, DiffRequest{}, &resp))
	if !resp.WorkingTree || resp.From != "HEAD" || len(resp.FromHash) != 40 || resp.Truncated {
		t.Fatalf("got %+v", resp)
	}
	if got := fileList(resp.Files); !slices.Equal(got, []string{"M app.go", "M lib.go"}) {
		t.Fatalf("files %q", got)
	}
	if strings.Contains(resp.Patch, "secret") || strings.Contains(resp.Patch, "K=old") ||
		!strings.Contains(resp.Patch, "+package app // edited") || !strings.Contains(resp.Patch, "+package lib // staged") {
		t.Fatalf("patch:\n%s", resp.Patch)
	}
	if got := omittedList(resp.OmittedSecrets); !slices.Equal(got, []string{".env"}) {
		t.Fatalf("omitted %+v", resp.OmittedSecrets)
	}
}

func TestDiffBetweenRevisions(t *testing.T) {
	r := newRepo(t)
	a := r.commit("one", map[string]string{"x.txt": "1\n", "y.txt": "y\n"})
	b := r.commit("two", map[string]string{"x.txt": "2\n", "prod.env": "DB=pw\n"})
	r.write(map[string]string{"x.txt": "uncommitted\n"})
	var resp DiffResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityDiff, DiffRequest{From: a, To: b}, &resp))
	if resp.WorkingTree || resp.ToHash != b || strings.Contains(resp.Patch, "uncommitted") || !strings.Contains(resp.Patch, "+2") {
		t.Fatalf("got %+v", resp)
	}
	if got := omittedList(resp.OmittedSecrets); !slices.Equal(got, []string{"prod.env"}) || strings.Contains(resp.Patch, "DB=pw") {
		t.Fatalf("omitted %+v\n%s", resp.OmittedSecrets, resp.Patch)
	}
	mustOK(t, call(t, wsContext(r.dir), CapabilityDiff, DiffRequest{From: a, To: b, Path: "y.txt"}, &resp))
	if len(resp.Files) != 0 || resp.Patch != "" {
		t.Fatalf("an unchanged path has no diff: %+v", resp)
	}
}

func TestDiffPatchIsBounded(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"big.txt": "start\n"})
	r.write(map[string]string{"big.txt": strings.Repeat("more text\n", 5000)})
	var resp DiffResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityDiff, DiffRequest{MaxBytes: 2048}, &resp))
	if !resp.Truncated || len(resp.Patch) > 2048 {
		t.Fatalf("truncated %v, %d bytes", resp.Truncated, len(resp.Patch))
	}
	mustOK(t, call(t, wsContext(r.dir), CapabilityDiff, DiffRequest{}, &resp))
	if resp.Truncated || !strings.HasSuffix(resp.Patch, "+more text\n") {
		t.Fatalf("the default bound holds this whole patch: truncated %v", resp.Truncated)
	}
}
