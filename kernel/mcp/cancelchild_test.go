package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// turnCallAsync makes a turn call in the background and returns its
// result on the channel.
func turnCallAsync(t *testing.T, cs *mcp.ClientSession, args map[string]any) chan map[string]any {
	done := make(chan map[string]any, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "turn_call", Arguments: args})
		if err != nil {
			t.Error(err)
			done <- nil
			return
		}
		body, _ := res.StructuredContent.(map[string]any)
		done <- body
	}()
	return done
}

func pausedCancel(t *testing.T) (*run.Kernel, *mcp.ClientSession, string, string) {
	ws := t.TempDir()
	k := openKernelWithSlowRead(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("cancel")}}, nil)
	_, out := call(t, cs, "cancel", map[string]any{})
	if out["status"] != "needs_agent" {
		t.Fatalf("cancel = %v", out)
	}
	return k, cs, str(out["run_id"]), ws
}

// call_cancel of a read in flight stops it: the cancel reaches the plugin
// (its read's context ends) and the call settles cancelled.
func TestCallCancelStopsRead(t *testing.T) {
	_, cs, _, ws := pausedCancel(t)
	started, cancelled := filepath.Join(ws, "started"), filepath.Join(ws, "cancelled")
	done := turnCallAsync(t, cs, map[string]any{"turn": "work", "tool": "slowread.wait", "call_id": "r1",
		"input": map[string]any{"started": started, "cancelled": cancelled}})
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
	if res, out := call(t, cs, "call_cancel", map[string]any{"call": "work/0"}); res.IsError || out["cancel_delivered"] != true {
		t.Fatalf("call_cancel = %v", out)
	}
	got := <-done
	if e, _ := got["error"].(map[string]any); got["status"] != string(contract.CallCancelled) || e["code"] != string(errcode.CallCancelled) {
		t.Fatalf("a cancelled read = %v", got)
	}
	// The kernel settles the call when it cancels it; the plugin sees its
	// read's context end in its own process, and writes its mark then.
	waitFor(t, func() bool { _, err := os.Stat(cancelled); return err == nil })
	_, status := call(t, cs, "turn_status", map[string]any{"turn": "work"})
	if !strings.Contains(toText(status["made"]), `"status":"cancelled"`) {
		t.Errorf("turn_status made = %v", status["made"])
	}
}

// A skill call's cancel reaches its child run: the read in flight stops, no
// later step starts, the child seals killed with reason cancelled, and the
// call settles cancelled since the child committed no effect.
func TestCallCancelChildNoEffect(t *testing.T) {
	k, cs, runID, ws := pausedCancel(t)
	started, cancelled, after := filepath.Join(ws, "started"), filepath.Join(ws, "cancelled"), filepath.Join(ws, "after")
	done := turnCallAsync(t, cs, map[string]any{"turn": "work", "tool": "skill:./quiet", "call_id": "q1",
		"input": map[string]any{"started": started, "cancelled": cancelled, "after": after}})
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
	if res, out := call(t, cs, "call_cancel", map[string]any{"call": "work/0"}); res.IsError || out["cancel_delivered"] != true {
		t.Fatalf("call_cancel = %v", out)
	}
	got := <-done
	if e, _ := got["error"].(map[string]any); got["status"] != string(contract.CallCancelled) || e["code"] != string(errcode.CallCancelled) {
		t.Fatalf("a cancelled skill call whose child committed nothing = %v", got)
	}
	if _, err := os.Stat(after); err == nil {
		t.Error("a step of the cancelled child started after the cancel")
	}
	child := childRun(t, k, runID)
	if child.Outcome != seal.OutcomeKilled || child.SealReason != seal.ReasonCancelled {
		t.Errorf("child = %s %s, want killed cancelled", child.Outcome, child.SealReason)
	}
}

// A skill call cancelled while its child's command runs: the command runs
// to its end, no later step starts, the child seals killed with reason
// cancelled, and the call settles as its child ended (child_killed), the
// cancel recorded beside it.
func TestCallCancelChildEffect(t *testing.T) {
	k, cs, runID, ws := pausedCancel(t)
	started, after := filepath.Join(ws, "started"), filepath.Join(ws, "after")
	done := turnCallAsync(t, cs, map[string]any{"turn": "work", "tool": "skill:./busy", "call_id": "b1",
		"input": map[string]any{"started": started, "after": after}})
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
	if res, out := call(t, cs, "call_cancel", map[string]any{"call": "work/0"}); res.IsError || out["cancel_delivered"] != true {
		t.Fatalf("call_cancel = %v", out)
	}
	got := <-done
	if e, _ := got["error"].(map[string]any); got["status"] != string(contract.StepFailed) || e["code"] != string(errcode.ChildKilled) {
		t.Fatalf("a cancelled skill call whose child committed an effect = %v", got)
	}
	if _, err := os.Stat(after); err == nil {
		t.Error("a step of the cancelled child started after the cancel")
	}
	child := childRun(t, k, runID)
	if child.Outcome != seal.OutcomeKilled || child.SealReason != seal.ReasonCancelled {
		t.Errorf("child = %s %s, want killed cancelled", child.Outcome, child.SealReason)
	}
	if len(child.Trace.Steps) != 1 || child.Trace.Steps[0].Status != contract.StepSuccess {
		t.Errorf("the child's command in flight must settle as it ended: %+v", child.Trace)
	}
	read, err := k.ReadRun(context.Background(), runID, "")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range read.Events["calls"] {
		types = append(types, ev.Type)
	}
	if strings.Join(types, ",") != "call.cancel_requested,call.failed" {
		t.Errorf("calls stream = %v, want the cancel beside the call", types)
	}
}

// childRun reads the envelope of the one child run of a root.
func childRun(t *testing.T, k *run.Kernel, rootID string) *contract.SkillRun {
	t.Helper()
	children, err := k.JournalForTest().Children(context.Background(), rootID)
	if err != nil || len(children) != 1 {
		t.Fatalf("children of %s = %v %v", rootID, children, err)
	}
	rec, err := k.RunRecord(context.Background(), children[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	env := &contract.SkillRun{}
	if err := json.Unmarshal(rec.Envelope, env); err != nil {
		t.Fatalf("child envelope %s: %v", rec.Envelope, err)
	}
	return env
}

// The cancel reaches a grandchild too: each run below the call seals killed
// with reason cancelled, no later step of either starts, and the call
// settles cancelled, since nothing below it committed an effect.
func TestCallCancelGrandchild(t *testing.T) {
	k, cs, runID, ws := pausedCancel(t)
	started, cancelled, after := filepath.Join(ws, "started"), filepath.Join(ws, "cancelled"), filepath.Join(ws, "after")
	done := turnCallAsync(t, cs, map[string]any{"turn": "work", "tool": "skill:./deep", "call_id": "d1",
		"input": map[string]any{"started": started, "cancelled": cancelled, "after": after}})
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
	if res, out := call(t, cs, "call_cancel", map[string]any{"call": "work/0"}); res.IsError || out["cancel_delivered"] != true {
		t.Fatalf("call_cancel = %v", out)
	}
	got := <-done
	if e, _ := got["error"].(map[string]any); got["status"] != string(contract.CallCancelled) || e["code"] != string(errcode.CallCancelled) {
		t.Fatalf("a cancelled call two levels deep = %v", got)
	}
	if _, err := os.Stat(after); err == nil {
		t.Error("a later step ran after the cancel")
	}
	child := childRun(t, k, runID)
	grand := childRun(t, k, child.RunID)
	for _, r := range []*contract.SkillRun{child, grand} {
		if r.Outcome != seal.OutcomeKilled || r.SealReason != seal.ReasonCancelled {
			t.Errorf("run %s = %s %s, want killed cancelled", r.RunID, r.Outcome, r.SealReason)
		}
	}
}

// A call cancelled before it started (waiting on the workspace lock another
// call holds) settles cancelled and never runs; the call holding the lock
// runs to its end.
func TestCallCancelBeforeStart(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("build")}}, nil)
	call(t, cs, "build", map[string]any{})
	first, second := filepath.Join(ws, "first"), filepath.Join(ws, "second")
	a := turnCallAsync(t, cs, map[string]any{"turn": "plan", "tool": "command.execute", "call_id": "a",
		"input": map[string]any{"argv": []string{"sh", "-c", "echo a > " + first + "; sleep 1; echo a"}}})
	waitFor(t, func() bool { _, err := os.Stat(first); return err == nil })
	b := turnCallAsync(t, cs, map[string]any{"turn": "plan", "tool": "command.execute", "call_id": "b",
		"input": map[string]any{"argv": []string{"sh", "-c", "echo b > " + second}}})
	waitFor(t, func() bool {
		_, out := call(t, cs, "call_cancel", map[string]any{"call": "plan/1"})
		return out["state"] == "executing"
	})
	gotB := <-b
	if e, _ := gotB["error"].(map[string]any); gotB["status"] != string(contract.CallCancelled) || e["code"] != string(errcode.CallCancelled) {
		t.Fatalf("a call cancelled before it started = %v", gotB)
	}
	if gotA := <-a; gotA["status"] != string(contract.StepSuccess) {
		t.Errorf("the call holding the lock = %v", gotA)
	}
	if _, err := os.Stat(second); err == nil {
		t.Error("the cancelled call ran")
	}
}
