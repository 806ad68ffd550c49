package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// openTurn starts the turnlimits package under the authority document doc
// and returns the run waiting on its turn "answer".
func openTurn(t *testing.T, k *run.Kernel, doc string) string {
	t.Helper()
	env, err := k.Skill(context.Background(), run.SkillRequest{Ref: testdata("turnlimits"), Authority: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if env.RunID == "" || env.Status != "needs_agent" {
		t.Fatalf("the run does not wait on its turn: %+v", env)
	}
	return env.RunID
}

func turnCall(t *testing.T, k *run.Kernel, runID, tool, callID string, input any) *run.TurnCallResult {
	t.Helper()
	raw, _ := json.Marshal(input)
	out, err := k.TurnCall(context.Background(), run.TurnCallRequest{RunID: runID, Turn: "answer", Tool: tool, CallID: callID, Input: raw})
	if err != nil {
		t.Fatalf("turn_call %s: %v", tool, err)
	}
	return out
}

// max_fanout counts a turn's skill calls as it counts a script's: each
// starts a child run, and the one past the bound is refused, starting none.
func TestTurnSkillCallsCountTowardMaxFanout(t *testing.T) {
	k := openKernel(t, "")
	runID := openTurn(t, k, `{"max_fanout":2}`)
	for i := range 2 {
		if got := turnCall(t, k, runID, "skill:./actor", fmt.Sprintf("a%d", i), map[string]any{}); got.Status != "success" {
			t.Fatalf("skill call %d within max_fanout 2 = %+v", i, got)
		}
	}
	got := turnCall(t, k, runID, "skill:./actor", "a2", map[string]any{})
	if got.Status != "refused" || got.Error == nil || got.Error.Code != errcode.FanoutLimitExceeded {
		t.Fatalf("the third skill call under max_fanout 2 = %+v, want %s", got, errcode.FanoutLimitExceeded)
	}
	// The same call made again is the recorded refusal, not a fresh count.
	if again := turnCall(t, k, runID, "skill:./actor", "a2", map[string]any{}); !again.Pinned || again.Status != "refused" {
		t.Errorf("the refused call made again = %+v", again)
	}
}

// max_child_depth holds a turn's skill call as it holds a script's: under
// max_child_depth 0 the root's turn starts no child.
func TestTurnSkillCallHeldToMaxChildDepth(t *testing.T) {
	k := openKernel(t, "")
	runID := openTurn(t, k, `{"max_child_depth":0}`)
	got := turnCall(t, k, runID, "skill:./actor", "a0", map[string]any{})
	if got.Status != "refused" || got.Error == nil || got.Error.Code != errcode.ChildDepthLimitExceeded {
		t.Fatalf("a skill call under max_child_depth 0 = %+v, want %s", got, errcode.ChildDepthLimitExceeded)
	}
}

// A turn's own call never writes to store, at any effects: the call to the
// store's append (a capability whose description says data operation,
// effect write) is refused saying so, and nothing is appended.
func TestTurnStoreWriteRefused(t *testing.T) {
	k := openKernel(t, "")
	runID := openTurn(t, k, `{"effects":"allow"}`)
	in := map[string]any{"resource": "events", "aggregate_id": "a", "idempotency_key": "k1", "event": map[string]any{"type": "x"}}
	got := turnCall(t, k, runID, "store/events.append", "w0", in)
	if got.Status != "refused" || got.Error == nil || got.Error.Code != errcode.TurnStoreWriteRefused {
		t.Fatalf("a turn's store write = %+v, want %s", got, errcode.TurnStoreWriteRefused)
	}
}
