package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// ask_human puts a question to a person: its request joins what the run
// waits on, the person answers under approvals with runx resume, and the
// same call made again with its call_id collects the answer.
func TestAskHuman(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("ask")}}, nil)
	_, out := call(t, cs, "ask", map[string]any{})
	runID := str(out["run_id"])
	_, status := call(t, cs, "turn_status", map[string]any{"turn": "decide"})
	if calls := status["calls"].([]any); len(calls) != 1 || calls[0].(map[string]any)["tool"] != "ask_human" {
		t.Fatalf("calls = %v", status["calls"])
	}
	for _, c := range []struct {
		args map[string]any
		code errcode.Code
	}{
		{map[string]any{"turn": "decide", "tool": "ask_human", "input": map[string]any{"reason": "Ship?"}}, "ask_human_call_id_required"},
		{map[string]any{"turn": "decide", "tool": "ask_human", "call_id": "x", "input": map[string]any{}}, "ask_human_input_invalid"},
		{map[string]any{"turn": "decide", "tool": "ask_human", "call_id": "x", "input": map[string]any{"reason": "a", "questions": []any{map[string]any{"id": "a", "prompt": "?"}}}}, "ask_human_input_invalid"},
		{map[string]any{"turn": "decide", "tool": "ask_human", "call_id": "x", "input": map[string]any{"questions": []any{
			map[string]any{"id": "a", "prompt": "?"}, map[string]any{"id": "b", "prompt": "?"}, map[string]any{"id": "c", "prompt": "?"}, map[string]any{"id": "d", "prompt": "?"}}}}, "ask_human_input_invalid"},
		{map[string]any{"turn": "decide", "tool": "ask_human", "call_id": "x", "input": map[string]any{"surprise": 1}}, "ask_human_input_invalid"},
	} {
		if res, out := call(t, cs, "turn_call", c.args); errorCode(t, res, out) != string(c.code) {
			t.Errorf("%v: %v, want %s", c.args["input"], out, c.code)
		}
	}
	ask := map[string]any{"turn": "decide", "tool": "ask_human", "call_id": "q1", "input": map[string]any{"reason": "Ship on friday?"}}
	res, pending := call(t, cs, "turn_call", ask)
	if res.IsError || pending["status"] != "pending" || pending["address"] != "decide/0" {
		t.Fatalf("ask_human = %v", pending)
	}
	digest := str(pending["waiting"].([]any)[0].(map[string]any)["request_digest"])
	_, list := call(t, cs, "turn_list", map[string]any{})
	if w := list["waiting"].([]any); len(w) != 2 || w[1].(map[string]any)["address"] != "decide/0" || w[1].(map[string]any)["kind"] != "approval" {
		t.Fatalf("turn_list = %v", list)
	}
	if res, out := call(t, cs, "turn_complete", map[string]any{"turn": "decide", "output": map[string]any{"choice": "x"}}); errorCode(t, res, out) != "turn_calls_pending" {
		t.Errorf("turn_complete with a call pending: %v", out)
	}
	// not answered yet: the same call reports it still pending
	if _, again := call(t, cs, "turn_call", ask); again["status"] != "pending" {
		t.Errorf("before the answer: %v", again)
	}
	// a resume that brings nothing keeps the question asked
	env, err := k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: []byte(`{}`)})
	if err != nil || len(env.Requests) != 2 {
		t.Fatalf("resume {} = %+v %v", env, err)
	}
	// the person answers under approvals; an agent answer is refused
	agent := resumeDoc(t, contract.LaneAnswers, "decide/0", digest, map[string]any{"value": map[string]any{"approved": true}})
	if _, err := k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: agent}); contract.CodeOf(err) != "resume_wrong_lane" {
		t.Errorf("an agent answer to ask_human: %v", err)
	}
	person := resumeDoc(t, contract.LaneApprovals, "decide/0", digest, map[string]any{"approved": true, "reason": "yes, friday"})
	env, err = k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: person})
	if err != nil || env.Status != contract.StatusNeedsAgent || len(env.Requests) != 1 || env.Requests[0].Address != "decide" {
		t.Fatalf("resume with the person's answer = %+v %v", env, err)
	}
	res, got := call(t, cs, "turn_call", ask)
	if res.IsError || got["status"] != "success" || toText(got["output"]) != `{"approved":true,"reason":"yes, friday"}` {
		t.Fatalf("collected = %v", got)
	}
	if _, pinned := call(t, cs, "turn_call", ask); pinned["pinned"] != true || pinned["receipt_id"] != got["receipt_id"] {
		t.Errorf("again = %v", pinned)
	}
	// questions
	q := map[string]any{"turn": "decide", "tool": "ask_human", "call_id": "q2", "input": map[string]any{"questions": []any{
		map[string]any{"id": "color", "prompt": "Which colour?", "options": []any{map[string]any{"label": "red"}, map[string]any{"label": "blue"}}}}}}
	_, pending = call(t, cs, "turn_call", q)
	w := pending["waiting"].([]any)[0].(map[string]any)
	if pending["address"] != "decide/1" || w["kind"] != "question" {
		t.Fatalf("questions = %v", pending)
	}
	wrong := resumeDoc(t, contract.LaneApprovals, "decide/1", str(w["request_digest"]), map[string]any{"value": map[string]any{"color": map[string]any{"option": "green"}}})
	if _, err := k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: wrong}); contract.CodeOf(err) != "resume_answer_invalid" {
		t.Errorf("an option the question does not offer: %v", err)
	}
	answer := resumeDoc(t, contract.LaneApprovals, "decide/1", str(w["request_digest"]), map[string]any{"value": map[string]any{"color": map[string]any{"option": "red"}}})
	if _, err := k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: answer}); err != nil {
		t.Fatal(err)
	}
	if _, got := call(t, cs, "turn_call", q); got["status"] != "success" || toText(got["output"]) != `{"color":{"option":"red"}}` {
		t.Fatalf("collected question = %v", got)
	}
	res, done := call(t, cs, "turn_complete", map[string]any{"turn": "decide", "output": map[string]any{"choice": "red on friday"}})
	if res.IsError || done["outcome"] != "completed" {
		t.Fatalf("turn_complete = %v", done)
	}
	rep, err := k.Verify(context.Background(), str(done["receipt_id"]))
	if err != nil || rep.Status != "verified" || rep.Receipts != 4 {
		t.Errorf("verify = %+v %v, want the run, the turn and its 2 calls", rep, err)
	}
}

func resumeDoc(t *testing.T, lane, addr, digest string, entry map[string]any) []byte {
	t.Helper()
	entry["request_digest"] = digest
	raw, err := json.Marshal(map[string]any{lane: map[string]any{addr: entry}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
