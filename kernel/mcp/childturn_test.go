package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// A turn's skill call whose child pauses keeps that pause: the child's
// turn is addressed under the call (answer/0#report) and worked through
// the same turn tools, the parent's turn cannot complete while the call
// waits, and the call settles with the child's result when the child seals.
func TestTurnSkillCallChildTurn(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "tides.txt"), []byte("two tides a day"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("nest")}}, nil)
	_, out := call(t, cs, "nest", map[string]any{})
	runID := str(out["run_id"])
	rep := map[string]any{"turn": "answer", "tool": "skill:./reporter", "call_id": "r1", "input": map[string]any{"topic": "tides"}}
	res, pending := call(t, cs, "turn_call", rep)
	if res.IsError || pending["status"] != "pending" || pending["address"] != "answer/0" {
		t.Fatalf("a skill call whose child pauses = %v", pending)
	}
	if w := pending["waiting"].([]any); len(w) != 1 || w[0].(map[string]any)["address"] != "answer/0#report" {
		t.Fatalf("waiting = %v, want the child's turn under the call", pending["waiting"])
	}
	_, list := call(t, cs, "turn_list", map[string]any{})
	addrs := map[string]bool{}
	for _, w := range list["waiting"].([]any) {
		addrs[str(w.(map[string]any)["address"])] = true
	}
	if !addrs["answer"] || !addrs["answer/0#report"] || len(addrs) != 2 {
		t.Fatalf("turn_list = %v", list)
	}
	res, status := call(t, cs, "turn_status", map[string]any{"turn": "answer/0#report"})
	if res.IsError || status["skill"] != "reporter" || toText(status["inputs"]) != `{"topic":"tides"}` {
		t.Fatalf("turn_status of the child's turn = %v", status)
	}
	// A call in the child's turn runs in the child run, under its authority.
	read := map[string]any{"turn": "answer/0#report", "tool": "fs.read", "call_id": "f1", "input": map[string]any{"path": "tides.txt"}}
	res, r := call(t, cs, "turn_call", read)
	if res.IsError || r["status"] != "success" || r["address"] != "answer/0#report/0" || !strings.Contains(toText(r["output"]), "two tides a day") {
		t.Fatalf("a call in the child's turn = %v", r)
	}
	if _, st := call(t, cs, "turn_status", map[string]any{"turn": "answer/0#report"}); !strings.Contains(toText(st["made"]), `"address":"answer/0#report/0"`) {
		t.Errorf("the child's turn lists its calls as %v", st["made"])
	}
	if _, st := call(t, cs, "turn_status", map[string]any{"turn": "answer"}); toText(st["made"]) == "[]" {
		t.Fatalf("the parent's turn lists no call: %v", st["made"])
	}
	if res, out := call(t, cs, "turn_complete", map[string]any{"turn": "answer", "output": map[string]any{"done": true}}); errorCode(t, res, out) != "turn_calls_pending" {
		t.Errorf("turn_complete with the skill call pending: %v", out)
	}
	if _, again := call(t, cs, "turn_call", rep); again["status"] != "pending" || again["pinned"] != true {
		t.Errorf("the call again while its child waits = %v", again)
	}
	res, env := call(t, cs, "turn_complete", map[string]any{"turn": "answer/0#report", "output": map[string]any{"text": "tides rise twice a day"}})
	if res.IsError || env["status"] != "needs_agent" {
		t.Fatalf("turn_complete of the child's turn = %v", env)
	}
	if reqs := env["requests"].([]any); len(reqs) != 1 || reqs[0].(map[string]any)["address"] != "answer" {
		t.Fatalf("after the child sealed the run waits on %v, want its own turn", env["requests"])
	}
	res, got := call(t, cs, "turn_call", rep)
	if res.IsError || got["status"] != "success" || got["pinned"] != true || toText(got["output"]) != `{"text":"tides rise twice a day"}` {
		t.Fatalf("the settled call = %v", got)
	}
	res, done := call(t, cs, "turn_complete", map[string]any{"turn": "answer", "output": map[string]any{"done": true}})
	if res.IsError || done["outcome"] != "completed" {
		t.Fatalf("turn_complete = %v", done)
	}
	v, err := k.Verify(context.Background(), str(done["receipt_id"]))
	if err != nil || v.Status != "verified" || v.Receipts != 6 {
		t.Errorf("verify = %+v %v, want the run, its turn, the call, the child, the child's turn and its call", v, err)
	}
	_ = runID
}
