package git

import (
	"slices"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestLogListsCommitsWithTheirFiles(t *testing.T) {
	r := newRepo(t)
	first := r.commit("first\n\nwith a body", map[string]string{"a.txt": "one\ntwo\nthree\nfour\n", "b.txt": "b"})
	r.run("mv", "a.txt", "renamed.txt")
	second := r.commit("second", map[string]string{"b.txt": "bb", "c.txt": "c"})
	var resp LogResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityLog, LogRequest{}, &resp))
	if resp.Count != 2 || resp.Truncated || resp.Repository != "." || resp.Rev != "HEAD" {
		t.Fatalf("got %+v", resp)
	}
	c := resp.Commits[0]
	if c.Hash != second || c.Subject != "second" || c.Author != "Ada Lovelace" || c.AuthorEmail != "ada@example.com" ||
		c.Date != "2026-01-02T03:04:05+00:00" || !slices.Equal(c.Parents, []string{first}) || c.Body != "" {
		t.Fatalf("got %+v", c)
	}
	if got := fileList(c.Files); !slices.Equal(got, []string{"M b.txt", "A c.txt", "R a.txt -> renamed.txt"}) {
		t.Fatalf("files %q", got)
	}
	if c.Files[2].Similarity != 100 {
		t.Fatalf("a pure rename is 100%% similar: %+v", c.Files[2])
	}
	if got := fileList(resp.Commits[1].Files); !slices.Equal(got, []string{"A a.txt", "A b.txt"}) || resp.Commits[1].Subject != "first" {
		t.Fatalf("first commit %+v", resp.Commits[1])
	}
}

func TestLogLeavesSecretsOutAndNamesThem(t *testing.T) {
	r := newRepo(t)
	r.commit("add config", map[string]string{".env": "API_KEY=hunter2", "app.go": "package app", "deploy/id_rsa": "k"})
	var resp LogResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityLog, LogRequest{}, &resp))
	c := resp.Commits[0]
	if got := fileList(c.Files); !slices.Equal(got, []string{"A app.go"}) {
		t.Fatalf("files %q", got)
	}
	if len(c.OmittedSecrets) != 2 || c.OmittedSecrets[0] != (OmittedSecret{Path: ".env", Pattern: ".env"}) ||
		c.OmittedSecrets[1] != (OmittedSecret{Path: "deploy/id_rsa", Pattern: "id_rsa"}) {
		t.Fatalf("omitted %+v", c.OmittedSecrets)
	}
}

func TestLogPathRangeAndBounds(t *testing.T) {
	r := newRepo(t)
	a := r.commit("one", map[string]string{"src/x.go": "1"})
	r.commit("two", map[string]string{"docs/r.md": "2"})
	c := r.commit("three", map[string]string{"src/x.go": "3"})
	pc := wsContext(r.dir)
	var resp LogResponse
	mustOK(t, call(t, pc, CapabilityLog, LogRequest{Path: "src"}, &resp))
	if resp.Count != 2 || resp.Commits[0].Hash != c || resp.Commits[1].Hash != a || resp.Path != "src" {
		t.Fatalf("path-limited log: %+v", resp)
	}
	mustOK(t, call(t, pc, CapabilityLog, LogRequest{Rev: a + "..HEAD"}, &resp))
	if resp.Count != 2 || resp.Truncated {
		t.Fatalf("range: %+v", resp)
	}
	mustOK(t, call(t, pc, CapabilityLog, LogRequest{MaxCount: 2}, &resp))
	if resp.Count != 2 || !resp.Truncated {
		t.Fatalf("a history longer than max_count is truncated: %+v", resp)
	}
	mustOK(t, call(t, pc, CapabilityLog, LogRequest{MaxCount: 3}, &resp))
	if resp.Count != 3 || resp.Truncated {
		t.Fatalf("exactly max_count is not truncated: %+v", resp)
	}
	wantCode(t, call(t, pc, CapabilityLog, LogRequest{MaxCount: LogMaxCount + 1}, nil), errcode.GitRequestInvalid)
}

func TestLogOfAnEmptyCommitAndAMerge(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"a.txt": "a"})
	r.run("checkout", "-q", "-b", "side")
	r.commit("side change", map[string]string{"side.txt": "s"})
	r.run("checkout", "-q", "main")
	r.commit("empty", nil)
	r.run("merge", "-q", "--no-ff", "-m", "merge side", "side")
	var resp LogResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityLog, LogRequest{}, &resp))
	if resp.Count != 4 {
		t.Fatalf("got %+v", resp)
	}
	merge := resp.Commits[0]
	if merge.Subject != "merge side" || len(merge.Parents) != 2 || !slices.Equal(fileList(merge.Files), []string{"A side.txt"}) {
		t.Fatalf("a merge lists its changes against its first parent: %+v", merge)
	}
	for _, c := range resp.Commits {
		if c.Subject == "empty" && len(c.Files) != 0 {
			t.Fatalf("empty commit has files: %+v", c)
		}
	}
}
