package mcp_test

import (
	"context"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
)

// The bytes a run's plugins answer are bounded over the run's whole life,
// turn calls included: a turn call made again on a person's approval runs
// and re-pauses the run, and that re-pause keeps the tree's count with the
// run (run.paused's answered_bytes), as a pause does. Before, it re-paused
// with no count, so what the call answered was forgotten at the next
// resume or call.
func TestTurnCallRepauseKeepsTheAnswerCount(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("gated")}}, nil)
	_, out := call(t, cs, "gated", map[string]any{})
	runID := str(out["run_id"])
	build := map[string]any{"turn": "plan", "tool": "command.execute", "call_id": "b1",
		"input": map[string]any{"argv": []string{"sh", "-c", "printf 'built %0200d' 0"}}}
	_, pending := call(t, cs, "turn_call", build)
	if pending["status"] != "pending" {
		t.Fatalf("a call the floor stops = %v", pending)
	}
	digest := str(pending["waiting"].([]any)[0].(map[string]any)["request_digest"])
	doc := []byte(`{"approvals":{"plan/0":{"request_digest":"` + digest + `","approved":true,"reason":"ok"}}}`)
	env, err := k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: doc})
	if err != nil || env.Status != contract.StatusNeedsAgent {
		t.Fatalf("resume with the approval = %+v %v", env, err)
	}
	before, err := k.JournalForTest().AnsweredBytes(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	res, got := call(t, cs, "turn_call", build)
	if res.IsError || got["status"] != "success" {
		t.Fatalf("approved call = %v", got)
	}
	after, err := k.JournalForTest().AnsweredBytes(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	if after < before+200 {
		t.Fatalf("the run keeps %d answered bytes after the approved call (%d before it); want at least the call's 200 more", after, before)
	}
}

// A turn call that settles without re-pausing the run keeps the tree's
// count too, in its unit's record: before, only a pause or a re-pause kept
// it, so what such a call answered was forgotten by the next call or
// resume (and by a crash).
func TestTurnCallKeepsTheAnswerCountWithoutARepause(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("build")}}, nil)
	_, out := call(t, cs, "build", map[string]any{})
	runID := str(out["run_id"])
	before, err := k.JournalForTest().AnsweredBytes(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	build := map[string]any{"turn": "plan", "tool": "command.execute", "call_id": "b1",
		"input": map[string]any{"argv": []string{"sh", "-c", "printf 'built %0200d' 0"}}}
	if res, got := call(t, cs, "turn_call", build); res.IsError || got["status"] != "success" {
		t.Fatalf("call = %v", got)
	}
	after, err := k.JournalForTest().AnsweredBytes(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	if after < before+200 {
		t.Fatalf("the run keeps %d answered bytes after the call (%d before it); want at least the call's 200 more", after, before)
	}
}
