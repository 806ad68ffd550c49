package mcp_test

import (
	"testing"

	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/sdk/errcode"
)

// A skill call states its act beside the child's inputs and it becomes the
// child run's act; a call that is not a skill call takes no act, and a
// malformed reuse option is refused by name (reuse_test.go has the rest).
func TestTurnCallOptions(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("nest")}}, nil)
	if _, out := call(t, cs, "nest", map[string]any{}); out["status"] != "needs_agent" {
		t.Fatalf("nest = %v", out)
	}
	res, got := call(t, cs, "turn_call", map[string]any{"turn": "answer", "tool": "skill:./actor", "act": "ship the fix", "call_id": "a1"})
	if res.IsError || got["status"] != "success" || toText(got["output"]) != `{"act":"ship the fix"}` {
		t.Fatalf("skill call with an act = %v", got)
	}
	for _, c := range []struct {
		args map[string]any
		code errcode.Code
	}{
		{map[string]any{"turn": "answer", "tool": "skill:./actor", "reuse": map[string]any{"max_age_seconds": -1}}, errcode.CallReuseInvalid},
		{map[string]any{"turn": "answer", "tool": "ask_human", "act": "x"}, "call_not_allowed"},
	} {
		if res, out := call(t, cs, "turn_call", c.args); errorCode(t, res, out) != string(c.code) {
			t.Errorf("%v: %v, want %s", c.args, out, c.code)
		}
	}
}

// An act on a call that is not a skill call is refused by name.
func TestTurnCallActOnTool(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("build")}}, nil)
	call(t, cs, "build", map[string]any{})
	res, out := call(t, cs, "turn_call", map[string]any{"turn": "plan", "tool": "command.execute", "act": "x", "input": map[string]any{"argv": []string{"true"}}})
	if errorCode(t, res, out) != "call_act_unsupported" {
		t.Errorf("act on a tool call = %v", out)
	}
}
