package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/run/reuse"
	"github.com/runxhq/runx/sdk/errcode"
)

// reuseSession opens a kernel on a clock the test moves, serves the reuse
// package and pauses its turn; it returns the session, the run id, the
// workspace, the kernel and how to move the clock.
func reuseSession(t *testing.T) (*mcp.ClientSession, string, string, *run.Kernel, func(time.Duration)) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "facts.txt"), []byte("the release is on friday"), 0o644); err != nil {
		t.Fatal(err)
	}
	var offset atomic.Int64
	base := time.Now().UTC()
	k, err := run.Open(context.Background(), run.Options{Workspace: ws, HomeDir: filepath.Join(ws, ".home"), Self: self, FirstParty: firstParty, RunxVersion: "0.1.0",
		Clock: func() time.Time { return base.Add(time.Duration(offset.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("reuse")}}, nil)
	res, out := call(t, cs, "reuse", map[string]any{})
	if res.IsError || out["status"] != "needs_agent" {
		t.Fatalf("reuse = %v", out)
	}
	return cs, str(out["run_id"]), ws, k, func(d time.Duration) { offset.Add(int64(d)) }
}

// reuseCall makes a skill call of the turn with a reuse option and returns
// its answer, failing unless it succeeded.
func reuseCall(t *testing.T, cs *mcp.ClientSession, callID, tool string, input map[string]any, extra map[string]any) map[string]any {
	t.Helper()
	args := map[string]any{"turn": "answer", "tool": tool, "input": input, "call_id": callID, "reuse": map[string]any{"max_age_seconds": 60}}
	for k, v := range extra {
		args[k] = v
	}
	res, out := call(t, cs, "turn_call", args)
	if res.IsError || out["status"] != "success" {
		t.Fatalf("%s = %v", callID, out)
	}
	return out
}

func reuseOf(t *testing.T, out map[string]any) (status, reason string, source map[string]any) {
	t.Helper()
	r, ok := out["reuse"].(map[string]any)
	if !ok {
		t.Fatalf("call %v carries no reuse note", out["call_id"])
	}
	source, _ = r["source"].(map[string]any)
	return str(r["status"]), str(r["reason"]), source
}

// receiptExtra reads a receipt's extra.reuse from the kernel's store.
func receiptReuse(t *testing.T, k *run.Kernel, id string) map[string]any {
	t.Helper()
	r, _, err := k.Receipt(id)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(r.Body.Extra["reuse"])
	var note map[string]any
	_ = json.Unmarshal(raw, &note)
	return note
}

// A skill call that asks for reuse is given an earlier sealed run of the
// skill under the same resolved inputs and child context, within its age;
// past that age, under other inputs or another act, it recomputes, and the
// call's record and receipt say why. The reused call's receipt names its
// source.
func TestSkillCallReuse(t *testing.T) {
	cs, runID, _, k, advance := reuseSession(t)
	word := map[string]any{"word": "hi"}

	first := reuseCall(t, cs, "s1", "skill:./shout", word, nil)
	if status, reason, _ := reuseOf(t, first); status != "recomputed" || reason != reuse.NoCandidate {
		t.Fatalf("first call: %s %s, want recomputed %s", status, reason, reuse.NoCandidate)
	}
	firstReceipt, _, err := k.Receipt(str(first["receipt_id"]))
	if err != nil || len(firstReceipt.Body.Children) != 1 {
		t.Fatalf("first call's receipt: %v %v", firstReceipt, err)
	}
	childReceipt := firstReceipt.Body.Children[0].ReceiptID

	advance(30 * time.Second)
	second := reuseCall(t, cs, "s2", "skill:./shout", word, nil)
	status, _, source := reuseOf(t, second)
	if status != "reused" || str(source["receipt_id"]) != childReceipt || source["age_seconds"] != float64(30) {
		t.Fatalf("second call: %v, want reused from %s at 30 s", second["reuse"], childReceipt)
	}
	if toText(second["output"]) != toText(first["output"]) {
		t.Errorf("reused output %v, want %v", second["output"], first["output"])
	}
	// the reused call's receipt names its source and commits no new child
	note := receiptReuse(t, k, str(second["receipt_id"]))
	if src, _ := note["source"].(map[string]any); note["status"] != "reused" || str(src["receipt_id"]) != childReceipt || str(src["signed_digest"]) == "" {
		t.Errorf("reused call's receipt says %v", note)
	}
	if r, _, _ := k.Receipt(str(second["receipt_id"])); len(r.Body.Children) != 0 {
		t.Errorf("a reused call started a child run: %v", r.Body.Children)
	}

	advance(61 * time.Second)
	old := reuseCall(t, cs, "s3", "skill:./shout", word, nil)
	if status, reason, _ := reuseOf(t, old); status != "recomputed" || reason != reuse.TooOld {
		t.Errorf("past its age: %s %s, want recomputed %s", status, reason, reuse.TooOld)
	}
	if note := receiptReuse(t, k, str(old["receipt_id"])); note["reason"] != reuse.TooOld {
		t.Errorf("the recomputed call's receipt says %v", note)
	}

	other := reuseCall(t, cs, "s4", "skill:./shout", map[string]any{"word": "ho"}, nil)
	if _, reason, _ := reuseOf(t, other); reason != reuse.NoCandidate {
		t.Errorf("other inputs: %s, want %s", reason, reuse.NoCandidate)
	}
	acted := reuseCall(t, cs, "s5", "skill:./shout", word, map[string]any{"act": "ship it"})
	if _, reason, _ := reuseOf(t, acted); reason != reuse.NoCandidate || toText(acted["output"]) != `{"loud":"HI (ship it)"}` {
		t.Errorf("another child context (act): %v %v, want recomputed %s", acted["reuse"], acted["output"], reuse.NoCandidate)
	}

	// a call pinned by its call_id returns the recorded note with it
	if res, again := call(t, cs, "turn_call", map[string]any{"turn": "answer", "tool": "skill:./shout", "input": word, "call_id": "s2",
		"reuse": map[string]any{"max_age_seconds": 60}}); res.IsError || again["pinned"] != true {
		t.Errorf("pinned = %v", again)
	} else if status, _, _ := reuseOf(t, again); status != "reused" {
		t.Errorf("pinned call's note: %v", again["reuse"])
	}

	// the run's record says what became of each reuse
	events, err := k.RunEvents(t.Context(), runID, 0)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, ev := range events {
		if ev.Type != "call.reuse" {
			continue
		}
		var d struct {
			Address string         `json:"address"`
			Reuse   *run.ReuseNote `json:"reuse"`
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		reasons[d.Address] = d.Reuse.Status + ":" + d.Reuse.Reason
	}
	want := map[string]string{"answer/0": "recomputed:" + reuse.NoCandidate, "answer/1": "reused:", "answer/2": "recomputed:" + reuse.TooOld,
		"answer/3": "recomputed:" + reuse.NoCandidate, "answer/4": "recomputed:" + reuse.NoCandidate}
	for addr, w := range want {
		if reasons[addr] != w {
			t.Errorf("record of %s: %q, want %q", addr, reasons[addr], w)
		}
	}

	// the sealed tree verifies: four calls that ran a child (the call's,
	// the child run's and its step's receipts), one reused (its own
	// receipt only), the turn and the run
	res, done := call(t, cs, "turn_complete", map[string]any{"turn": "answer", "output": map[string]any{"done": true}})
	if res.IsError || done["outcome"] != "completed" {
		t.Fatalf("turn_complete = %v", done)
	}
	v, err := k.Verify(t.Context(), str(done["receipt_id"]))
	if err != nil || v.Status != "verified" || v.Receipts != 4*3+1+2 {
		t.Errorf("verify = %+v %v", v, err)
	}
}

// A native read of mutable local state is made again and compared: while
// the file reads the same the earlier result stands, with the read named
// as verified; once it changed the call recomputes, saying which read.
func TestSkillCallReuseRereadsLocalState(t *testing.T) {
	cs, _, ws, _, _ := reuseSession(t)
	in := map[string]any{"topic": "release", "file": "facts.txt"}
	reuseCall(t, cs, "l1", "skill:./lookup", in, nil)
	second := reuseCall(t, cs, "l2", "skill:./lookup", in, nil)
	status, _, _ := reuseOf(t, second)
	verified, _ := second["reuse"].(map[string]any)["verified"].([]any)
	if status != "reused" || len(verified) != 1 || verified[0] != "read" {
		t.Fatalf("same file: %v, want reused with read verified", second["reuse"])
	}
	if err := os.WriteFile(filepath.Join(ws, "facts.txt"), []byte("the release moved to monday"), 0o644); err != nil {
		t.Fatal(err)
	}
	third := reuseCall(t, cs, "l3", "skill:./lookup", in, nil)
	if status, reason, _ := reuseOf(t, third); status != "recomputed" || reason != reuse.ReadChanged {
		t.Fatalf("changed file: %v, want recomputed %s", third["reuse"], reuse.ReadChanged)
	}
	if toText(third["output"]) != `{"line":"release: the release moved to monday"}` {
		t.Errorf("recomputed output = %v", third["output"])
	}
}

// A source whose run started a child skill is never reused: the call
// recomputes and says which step stood in the way.
func TestSkillCallReuseIneligibleStep(t *testing.T) {
	cs, _, _, _, _ := reuseSession(t)
	reuseCall(t, cs, "w1", "skill:./wrap", map[string]any{"word": "hi"}, nil)
	second := reuseCall(t, cs, "w2", "skill:./wrap", map[string]any{"word": "hi"}, nil)
	if status, reason, _ := reuseOf(t, second); status != "recomputed" || reason != reuse.StepIneligible {
		t.Errorf("nested skill: %v, want recomputed %s", second["reuse"], reuse.StepIneligible)
	}
}

// A reuse option that is not {max_age_seconds: n}, or on a call that is not
// a skill call, is refused with its code before anything runs.
func TestSkillCallReuseRefusals(t *testing.T) {
	cs, _, _, _, _ := reuseSession(t)
	for _, c := range []struct {
		tool  string
		reuse any
		code  errcode.Code
	}{
		{"skill:./shout", map[string]any{"max_age_seconds": 0}, errcode.CallReuseInvalid},
		{"skill:./shout", map[string]any{"max_age_seconds": 1.5}, errcode.CallReuseInvalid},
		{"skill:./shout", map[string]any{"max_age_seconds": "60"}, errcode.CallReuseInvalid},
		{"skill:./shout", map[string]any{"max_age_seconds": 60, "scope": "all"}, errcode.CallReuseInvalid},
		{"skill:./shout", map[string]any{}, errcode.CallReuseInvalid},
		{"skill:./shout", 60, errcode.CallReuseInvalid},
		{"fs.read", map[string]any{"max_age_seconds": 60}, errcode.CallReuseUnsupported},
	} {
		input := map[string]any{"word": "hi"}
		if c.tool == "fs.read" {
			input = map[string]any{"path": "facts.txt"}
		}
		res, out := call(t, cs, "turn_call", map[string]any{"turn": "answer", "tool": c.tool, "input": input, "reuse": c.reuse})
		if code := errorCode(t, res, out); code != string(c.code) {
			t.Errorf("%s reuse %v: %s, want %s", c.tool, c.reuse, code, c.code)
		}
	}
	// nothing was claimed: the turn holds no call
	res, out := call(t, cs, "turn_status", map[string]any{"turn": "answer"})
	if res.IsError || len(anySlice(out["made"])) != 0 {
		t.Errorf("refused reuse options left calls: %v", out["made"])
	}
}

func anySlice(v any) []any { s, _ := v.([]any); return s }
