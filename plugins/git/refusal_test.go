package git

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

func TestRefusals(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"a.txt": "a", ".env": "K=v"})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(r.dir, "out")); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	pc := wsContext(r.dir)
	for name, tc := range map[string]struct {
		pc         plugin.Context
		capability string
		input      any
		code       errcode.Code
	}{
		"option as rev":         {pc, CapabilityShow, ShowRequest{Rev: "--output=/tmp/x"}, errcode.GitRevInvalid},
		"whitespace in rev":     {pc, CapabilityLog, LogRequest{Rev: "HEAD --all"}, errcode.GitRevInvalid},
		"option in a range":     {pc, CapabilityLog, LogRequest{Rev: "--all..HEAD"}, errcode.GitRevInvalid},
		"unknown rev":           {pc, CapabilityShow, ShowRequest{Rev: "no-such-branch"}, errcode.GitRevNotFound},
		"unknown diff base":     {pc, CapabilityDiff, DiffRequest{From: "v9.9"}, errcode.GitRevNotFound},
		"not a repository":      {wsContext(plain), CapabilityLog, LogRequest{}, errcode.GitNotARepository},
		"outside the workspace": {pc, CapabilityLog, LogRequest{Path: "../"}, errcode.ReachOutsideWorkspace},
		"symlink escape":        {pc, CapabilityLog, LogRequest{Path: "out"}, errcode.ReachSymlinkEscape},
		"inside .git":           {pc, CapabilityLog, LogRequest{Path: ".git"}, errcode.ReachProtectedDir},
		"secret path":           {pc, CapabilityLog, LogRequest{Path: ".env"}, errcode.ReachSecretRefused},
		"secret in diff":        {pc, CapabilityDiff, DiffRequest{Path: ".env"}, errcode.ReachSecretRefused},
		"unknown field":         {pc, CapabilityLog, map[string]any{"all": true}, errcode.GitRequestInvalid},
		"no workspace":          {plugin.Context{Reach: pathpolicy.ReachWorkspace}, CapabilityLog, LogRequest{}, errcode.ReachWorkspaceMissing},
		"unknown capability":    {pc, "git.push", LogRequest{}, "capability_not_found"},
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, call(t, tc.pc, tc.capability, tc.input, nil), tc.code)
		})
	}
}

// A workspace that is a directory inside a larger repository would show
// that repository's history, most of it outside the workspace.
func TestAWorkspaceInsideALargerRepositoryIsRefused(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"sub/a.txt": "a", "secret-elsewhere.txt": "x"})
	wantCode(t, call(t, wsContext(filepath.Join(r.dir, "sub")), CapabilityLog, LogRequest{}, nil), errcode.ReachOutsideWorkspace)
}

func TestANestedRepositoryIsUsedWhenNamed(t *testing.T) {
	outer := newRepo(t)
	outer.commit("outer", map[string]string{"o.txt": "o"})
	inner := &testRepo{tb: t, dir: filepath.Join(outer.dir, "vendor", "lib")}
	if err := os.MkdirAll(inner.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	inner.run("init", "-q", "-b", "main")
	hash := inner.commit("inner", map[string]string{"lib.go": "package lib"})
	var resp LogResponse
	mustOK(t, call(t, wsContext(outer.dir), CapabilityLog, LogRequest{Path: "vendor/lib"}, &resp))
	if resp.Repository != "vendor/lib" || resp.Count != 1 || resp.Commits[0].Hash != hash {
		t.Fatalf("got %+v", resp)
	}
}

func TestReachInputsReachesAnotherRepository(t *testing.T) {
	ws := newRepo(t)
	ws.commit("ws", map[string]string{"w.txt": "w"})
	other := newRepo(t)
	hash := other.commit("other", map[string]string{"o.txt": "o"})
	pc := plugin.Context{WorkspaceRoot: ws.dir, Reach: pathpolicy.ReachInputs, ReachRoots: []string{other.dir}}
	var resp LogResponse
	mustOK(t, call(t, pc, CapabilityLog, LogRequest{Path: other.dir}, &resp))
	if resp.Commits[0].Hash != hash {
		t.Fatalf("got %+v", resp)
	}
	wantCode(t, call(t, wsContext(ws.dir), CapabilityLog, LogRequest{Path: other.dir}, nil), errcode.ReachOutsideWorkspace)
}

// Repository configuration can name programs for git to run. A read must
// run none of them.
func TestRepositoryConfigRunsNothing(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"a.txt": "one\n", ".gitattributes": "*.txt diff=conv\n"})
	r.commit("change", map[string]string{"a.txt": "two\n"})
	r.write(map[string]string{"a.txt": "three\n"})
	// Configured last: the test's own git commands would run them too.
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"diff.external", script}, {"core.fsmonitor", script}, {"diff.conv.textconv", script},
		{"core.pager", script}, {"gpg.program", script}, {"log.showSignature", "true"},
	} {
		r.run("config", kv[0], kv[1])
	}
	pc := wsContext(r.dir)
	mustOK(t, call(t, pc, CapabilityLog, LogRequest{}, nil))
	mustOK(t, call(t, pc, CapabilityShow, ShowRequest{Rev: "HEAD"}, nil))
	mustOK(t, call(t, pc, CapabilityDiff, DiffRequest{}, nil))
	if _, err := os.Stat(marker); err == nil {
		raw, _ := os.ReadFile(marker)
		t.Fatalf("a configured program ran: %s", raw)
	}
}

func TestInfoDescribesThreeReadTools(t *testing.T) {
	info := New().Info()
	if info.Name != Name || len(info.Capabilities) != 3 {
		t.Fatalf("got %+v", info)
	}
	for _, d := range info.Capabilities {
		if d.Effect != plugin.EffectRead || len(d.InputSchema) == 0 || len(d.OutputSchema) == 0 {
			t.Fatalf("got %+v", d)
		}
	}
}

func TestAChangeTooLargeToScreenIsRefused(t *testing.T) {
	r := newRepo(t)
	r.commit("many", map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c"})
	defer func(old int) { rawMaxBytes = old }(rawMaxBytes)
	rawMaxBytes = 100
	wantCode(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD"}, nil), errcode.GitChangeTooLarge)
	r.write(map[string]string{"a.txt": "A", "b.txt": "B", "c.txt": "C"})
	wantCode(t, call(t, wsContext(r.dir), CapabilityDiff, DiffRequest{}, nil), errcode.GitChangeTooLarge)
}

func TestTooManySecretsIsRefused(t *testing.T) {
	r := newRepo(t)
	r.commit("secrets", map[string]string{".env": "a", "b/.env": "b"})
	defer func(old int) { maxExcludes = old }(maxExcludes)
	maxExcludes = 1
	wantCode(t, call(t, wsContext(r.dir), CapabilityShow, ShowRequest{Rev: "HEAD"}, nil), errcode.GitTooManySecrets)
}

func TestACancelledCallRunsNoGit(t *testing.T) {
	r := newRepo(t)
	r.commit("base", map[string]string{"a.txt": "a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in, _ := json.Marshal(LogRequest{})
	res := New().Invoke(ctx, &plugin.Call{Capability: CapabilityLog, Context: wsContext(r.dir), Input: in})
	wantCode(t, res, errcode.GitCancelled)
}
