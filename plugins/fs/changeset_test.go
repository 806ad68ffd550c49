package fs

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
)

// changeSetOf asks the plugin, over gRPC, for the change set of one change
// tool's call.
func changeSetOf(t *testing.T, root, capability string, input any) (*plugin.ChangeSet, *plugin.Result) {
	t.Helper()
	res, err := plugintest.Serve(t, New()).Preview(capability, wsContext(root), input)
	must(t, err)
	if res.Status != plugin.StatusOK {
		return nil, res
	}
	return plugintest.ChangeSet(t, res), res
}

// recoverOver asks the plugin, over gRPC, to recover a run.
func recoverOver(t *testing.T, capability string, pc plugin.Context) *plugin.Result {
	t.Helper()
	res, err := plugintest.Serve(t, New()).Recover(capability, pc)
	must(t, err)
	return res
}

func TestPreviewRPCAnswersTheCompleteChangeSet(t *testing.T) {
	lines := make([]string, 0, 300)
	for i := range 300 {
		lines = append(lines, "line "+strings.Repeat("y", i%5))
	}
	long := strings.Join(lines, "\n") + "\n"
	root := workspace(t, map[string]string{"a.go": "package a\n", "long.txt": long, "gone.txt": "bye\n"})
	before := snapshot(t, root)

	cs, res := changeSetOf(t, root, CapabilityEdit, EditRequest{Path: "a.go", Edits: []Edit{{Old: "package a", New: "package b"}}})
	if res.Status != plugin.StatusOK {
		t.Fatalf("%+v", res)
	}
	want := plugin.Change{Path: "a.go", Op: plugin.ChangeModify, BeforeDigest: digest("package a\n"), AfterDigest: digest("package b\n"),
		Diff: "diff a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,1 @@\n-package a\n+package b\n"}
	if cs.Schema != plugin.ChangeSetSchema || len(cs.Changes) != 1 || cs.Changes[0] != want {
		t.Fatalf("got %+v", cs)
	}

	rewritten := strings.ReplaceAll(long, "line", "LINE")
	cs, _ = changeSetOf(t, root, CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{
		{Path: "long.txt", Content: &rewritten, ExpectedDigest: digest(long)},
		{Path: "new/b.txt", Content: str("one\n"), Create: true},
		{Path: "gone.txt", ExpectedDigest: digest("bye\n")},
	}})
	if got := strings.Count(cs.Changes[0].Diff, "\n+LINE"); got != 300 {
		t.Fatalf("the diff adds %d of 300 lines: nothing may be cut", got)
	}
	if c := cs.Changes[1]; c.Op != plugin.ChangeCreate || c.BeforeDigest != "" || c.AfterDigest != digest("one\n") {
		t.Fatalf("create %+v", c)
	}
	if c := cs.Changes[2]; c.Op != plugin.ChangeDelete || c.AfterDigest != "" || !strings.HasSuffix(c.Diff, "-bye\n") {
		t.Fatalf("delete %+v", c)
	}

	cs, _ = changeSetOf(t, root, CapabilityWrite, WriteRequest{Path: "fresh.txt", Content: str("x\n")})
	if c := cs.Changes[0]; c.Op != plugin.ChangeCreate || c.Path != "fresh.txt" || c.AfterDigest != digest("x\n") {
		t.Fatalf("write %+v", c)
	}
	sameTree(t, before, snapshot(t, root))
}

func TestPreviewRPCRefusesWhatTheChangeWould(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a a"})
	for name, tc := range map[string]struct {
		capability string
		input      any
		code       errcode.Code
	}{
		"blind":         {CapabilityWrite, WriteRequest{Path: "a.txt", Content: str("x")}, errcode.FSBlindWriteRefused},
		"ambiguous":     {CapabilityEdit, EditRequest{Path: "a.txt", Edits: []Edit{{Old: "a", New: "b"}}}, errcode.FSEditAmbiguous},
		"stale":         {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "a.txt", ExpectedDigest: digest("b")}}}, errcode.FSDigestMismatch},
		"secret":        {CapabilityWrite, WriteRequest{Path: ".env", Content: str("x")}, errcode.ReachSecretRefused},
		"escape":        {CapabilityWrite, WriteRequest{Path: "../out.txt", Content: str("x")}, errcode.ReachOutsideWorkspace},
		"unknown field": {CapabilityWrite, map[string]any{"path": "x", "content": "y", "mode": 7}, errcode.FSRequestInvalid},
		"a read":        {CapabilityRead, ReadRequest{Path: "a.txt"}, "preview_unsupported"},
	} {
		t.Run(name, func(t *testing.T) {
			_, res := changeSetOf(t, root, tc.capability, tc.input)
			if res.Status != plugin.StatusRefused {
				t.Fatalf("want a refusal, got %+v", res)
			}
			wantCode(t, res, tc.code)
		})
	}
}

func TestRecoverRPCRollsBackWhatACrashLeftBegun(t *testing.T) {
	root := crashWorkspace(t)
	before := snapshot(t, root)
	crashMidBundle(t, root, changeContext(root))

	res := recoverOver(t, CapabilityApplyBundle, recoverContext(root))
	mustOK(t, res)
	var resp RecoverResponse
	must(t, json.Unmarshal(res.Output, &resp))
	if resp.RunID != "run-1" || len(resp.RolledBack) != 1 || resp.RolledBack[0].Capability != CapabilityApplyBundle {
		t.Fatalf("got %+v", resp)
	}
	sameTree(t, before, snapshot(t, root))

	// A second recovery, for another change tool of the same run, finds it settled.
	res = recoverOver(t, CapabilityWrite, recoverContext(root))
	mustOK(t, res)
	must(t, json.Unmarshal(res.Output, &resp))
	if len(resp.RolledBack) != 0 || resp.AlreadyRolledBack != 1 {
		t.Fatalf("got %+v", resp)
	}
}

func TestRecoverRPCNeedsARun(t *testing.T) {
	pc := recoverContext(t.TempDir())
	pc.RunID = ""
	wantCode(t, recoverOver(t, CapabilityWrite, pc), errcode.FSRequestInvalid)
}

func TestDescribeDeclaresPathsPreviewAndRecovery(t *testing.T) {
	info := New().Info()
	for id, want := range map[string][]plugin.PathInput{
		CapabilityRead:        {{Pointer: "/path", Role: plugin.PathRead}},
		CapabilityList:        {{Pointer: "/path", Role: plugin.PathRead}},
		CapabilitySearch:      {{Pointer: "/path", Role: plugin.PathRead}},
		CapabilityWrite:       {{Pointer: "/path", Role: plugin.PathWrite}},
		CapabilityEdit:        {{Pointer: "/path", Role: plugin.PathWrite}},
		CapabilityApplyBundle: {{Pointer: "/changes/*/path", Role: plugin.PathWrite}, {Pointer: "/changes/*/path", Role: plugin.PathDelete}},
	} {
		d := info.Find(id)
		if d == nil {
			t.Fatalf("%s is not described", id)
		}
		if len(d.PathInputs) != len(want) {
			t.Fatalf("%s: path inputs %+v, want %+v", id, d.PathInputs, want)
		}
		for i := range want {
			if d.PathInputs[i] != want[i] {
				t.Fatalf("%s: path inputs %+v, want %+v", id, d.PathInputs, want)
			}
		}
		changes := d.Effect == plugin.EffectWrite
		if d.Previews != changes || d.Recovers != changes {
			t.Fatalf("%s: previews %v recovers %v", id, d.Previews, d.Recovers)
		}
	}
}
