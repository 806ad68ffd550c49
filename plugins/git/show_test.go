package git

import (
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
)

func TestShowCommitWithPatchLeavesTheEnvFileOut(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"app.go": "package app\n"})
	hash := r.commit("configure", map[string]string{
		".env": "API_KEY=hunter2\n", "app.go": "package app\n\nvar configured = true\n", ".env.example": "API_KEY=\n",
	})
	var resp ShowResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD"}, &resp))
	if resp.Hash != hash || resp.Commit == nil || resp.Patch == nil || resp.File != nil || resp.Truncated {
		t.Fatalf("got %+v", resp)
	}
	patch := *resp.Patch
	if strings.Contains(patch, "hunter2") || strings.Contains(patch, "a/.env\n") || strings.Contains(patch, "b/.env\n") {
		t.Fatalf("the patch shows the secret:\n%s", patch)
	}
	if !strings.Contains(patch, "+var configured = true") || !strings.Contains(patch, "b/.env.example") {
		t.Fatalf("the patch lost what it may show:\n%s", patch)
	}
	if got := fileList(resp.Commit.Files); !slices.Equal(got, []string{"A .env.example", "M app.go"}) {
		t.Fatalf("files %q", got)
	}
	if len(resp.OmittedSecrets) != 1 || resp.OmittedSecrets[0] != (OmittedSecret{Path: ".env", Pattern: pathpolicy.PatternEnv}) {
		t.Fatalf("omitted %+v", resp.OmittedSecrets)
	}
	if resp.Commit.Subject != "configure" {
		t.Fatalf("commit %+v", resp.Commit)
	}
}

func TestShowJudgesPEMFilesByContent(t *testing.T) {
	r := newRepo(t)
	r.commit("certs", map[string]string{"tls/server.pem": testPrivateKey, "tls/ca.pem": testCertificate})
	var resp ShowResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD"}, &resp))
	if strings.Contains(*resp.Patch, "PRIVATE KEY") || !strings.Contains(*resp.Patch, "BEGIN CERTIFICATE") {
		t.Fatalf("patch:\n%s", *resp.Patch)
	}
	if got := omittedList(resp.OmittedSecrets); !slices.Equal(got, []string{"tls/server.pem"}) || resp.OmittedSecrets[0].Pattern != pathpolicy.PatternPrivateKeyPEM {
		t.Fatalf("omitted %+v", resp.OmittedSecrets)
	}
}

func TestARenameOfASecretLeavesBothSidesOut(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{".env": "API_KEY=hunter2\nOTHER=1\n"})
	r.run("mv", ".env", "settings.txt")
	r.commit("rename", nil)
	var resp ShowResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD"}, &resp))
	if strings.Contains(*resp.Patch, "hunter2") || len(resp.Commit.Files) != 0 {
		t.Fatalf("the renamed secret shows: %+v\n%s", resp.Commit.Files, *resp.Patch)
	}
	if got := omittedList(resp.OmittedSecrets); !slices.Equal(got, []string{".env", "settings.txt"}) {
		t.Fatalf("omitted %+v", resp.OmittedSecrets)
	}
}

func TestShowOneFileAtARevision(t *testing.T) {
	r := newRepo(t)
	old := r.commit("v1", map[string]string{"docs/guide.md": "version one\n", "img.bin": "\x00\x01\x02"})
	r.commit("v2", map[string]string{"docs/guide.md": "version two\n"})
	pc := wsContext(r.dir)
	var resp ShowResponse
	mustOK(t, call(t, pc, CapabilityShow, ShowRequest{Rev: old, Path: "docs/guide.md"}, &resp))
	if resp.File == nil || resp.Commit != nil || resp.File.Content != "version one\n" || resp.File.Path != "docs/guide.md" ||
		resp.File.ContentDigest != canon.DigestBytes([]byte("version one\n")) || len(resp.File.Blob) != 40 {
		t.Fatalf("got %+v", resp)
	}
	wantCode(t, call(t, pc, CapabilityShow, ShowRequest{Rev: "HEAD", Path: "img.bin"}, nil), errcode.GitBinaryRefused)
	wantCode(t, call(t, pc, CapabilityShow, ShowRequest{Rev: "HEAD", Path: "docs/guide.md", MaxBytes: 5}, nil), errcode.GitFileTooLarge)
	wantCode(t, call(t, pc, CapabilityShow, ShowRequest{Rev: "HEAD", Path: "docs/missing.md"}, nil), errcode.GitPathNotFound)
}

func TestShowADirectoryLimitsTheCommit(t *testing.T) {
	r := newRepo(t)
	r.commit("both", map[string]string{"src/a.go": "a\n", "docs/b.md": "b\n"})
	var resp ShowResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD", Path: "src"}, &resp))
	if got := fileList(resp.Commit.Files); !slices.Equal(got, []string{"A src/a.go"}) || strings.Contains(*resp.Patch, "docs/b.md") {
		t.Fatalf("got %q\n%s", got, *resp.Patch)
	}
}

func TestShowOfASecretFileIsRefused(t *testing.T) {
	r := newRepo(t)
	r.commit("config", map[string]string{".env": "API_KEY=hunter2", "server.pem": testPrivateKey})
	pc := wsContext(r.dir)
	wantCode(t, call(t, pc, CapabilityShow, ShowRequest{Rev: "HEAD", Path: ".env"}, nil), errcode.ReachSecretRefused)
	// Gone from the working tree, the key is still judged by its content.
	r.run("rm", "-q", "server.pem")
	wantCode(t, call(t, pc, CapabilityShow, ShowRequest{Rev: "HEAD", Path: "server.pem"}, nil), errcode.ReachSecretRefused)
}

func TestShowPatchIsBounded(t *testing.T) {
	r := newRepo(t)
	r.commit("big", map[string]string{"big.txt": strings.Repeat("a line of text\n", 2000)})
	var resp ShowResponse
	mustOK(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD", MaxBytes: 1000}, &resp))
	if !resp.Truncated || len(*resp.Patch) > 1000 || !strings.HasSuffix(*resp.Patch, "\n") {
		t.Fatalf("truncated %v, %d bytes", resp.Truncated, len(*resp.Patch))
	}
	wantCode(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD", MaxBytes: PatchMaxBytes + 1}, nil), errcode.GitRequestInvalid)
	wantCode(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{}, nil), errcode.GitRequestInvalid)
}
