package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// A turn call the approval floor stops is kept pending: its request joins
// what the run waits on, turn_complete is refused while it waits, a person
// answers it under approvals, and the same call made again settles it: run
// when approved, refused approval_declined when declined.
func TestTurnCallApproval(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("gated")}}, nil)
	_, out := call(t, cs, "gated", map[string]any{})
	runID := str(out["run_id"])
	if out["status"] != "needs_agent" {
		t.Fatalf("gated = %v", out)
	}
	mark := filepath.Join(ws, "mark")
	build := map[string]any{"turn": "plan", "tool": "command.execute", "call_id": "b1",
		"input": map[string]any{"argv": []string{"sh", "-c", "echo built > " + mark + "; echo built"}}}
	res, pending := call(t, cs, "turn_call", build)
	if res.IsError || pending["status"] != "pending" || pending["address"] != "plan/0" {
		t.Fatalf("a call the floor stops = %v", pending)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the command ran before its approval")
	}
	digest := str(pending["waiting"].([]any)[0].(map[string]any)["request_digest"])
	_, status := call(t, cs, "turn_status", map[string]any{"turn": "plan"})
	if made := status["made"].([]any); len(made) != 1 || made[0].(map[string]any)["status"] != "pending" {
		t.Fatalf("turn_status made = %v, want the call kept pending", status["made"])
	}
	_, list := call(t, cs, "turn_list", map[string]any{})
	if w := list["waiting"].([]any); len(w) != 2 || w[1].(map[string]any)["address"] != "plan/0" || w[1].(map[string]any)["kind"] != "approval" {
		t.Fatalf("turn_list = %v", list)
	}
	if res, out := call(t, cs, "turn_complete", map[string]any{"turn": "plan", "output": map[string]any{"ok": true}}); errorCode(t, res, out) != "turn_calls_pending" {
		t.Errorf("turn_complete with a call pending: %v", out)
	}
	if _, again := call(t, cs, "turn_call", build); again["status"] != "pending" {
		t.Errorf("before the answer: %v", again)
	}
	// A second call the person declines.
	other := map[string]any{"turn": "plan", "tool": "command.execute", "call_id": "b2", "input": map[string]any{"argv": []string{"sh", "-c", "echo no"}}}
	_, p2 := call(t, cs, "turn_call", other)
	if p2["status"] != "pending" || p2["address"] != "plan/1" {
		t.Fatalf("second call = %v", p2)
	}
	d2 := str(p2["waiting"].([]any)[0].(map[string]any)["request_digest"])
	doc := []byte(`{"approvals":{"plan/0":{"request_digest":"` + digest + `","approved":true,"reason":"ok"},"plan/1":{"request_digest":"` + d2 + `","approved":false,"reason":"not that"}}}`)
	env, err := k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: doc})
	if err != nil || env.Status != contract.StatusNeedsAgent || len(env.Requests) != 1 || env.Requests[0].Address != "plan" {
		t.Fatalf("resume with the approvals = %+v %v", env, err)
	}
	res, got := call(t, cs, "turn_call", build)
	if res.IsError || got["status"] != "success" || !strings.Contains(toText(got["output"]), "built") {
		t.Fatalf("approved call = %v", got)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	res, declined := call(t, cs, "turn_call", other)
	if e, _ := declined["error"].(map[string]any); !res.IsError || declined["status"] != "refused" || e["code"] != string(errcode.ApprovalDeclined) {
		t.Fatalf("declined call = %v", declined)
	}
	if _, pinned := call(t, cs, "turn_call", build); pinned["pinned"] != true || pinned["receipt_id"] != got["receipt_id"] {
		t.Errorf("again = %v", pinned)
	}
	res, done := call(t, cs, "turn_complete", map[string]any{"turn": "plan", "output": map[string]any{"ok": true}})
	if res.IsError || done["outcome"] != "completed" {
		t.Fatalf("turn_complete = %v", done)
	}
	rep, err := k.Verify(context.Background(), str(done["receipt_id"]))
	if err != nil || rep.Status != "verified" || rep.Receipts != 4 {
		t.Errorf("verify = %+v %v, want the run, the turn and its 2 calls", rep, err)
	}
}
