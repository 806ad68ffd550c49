package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/sdk/errcode"
)

// pausedReview starts the review skill through its tool and returns the
// session and the paused run's id.
func pausedReview(t *testing.T) (*mcp.ClientSession, string, string) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "facts.txt"), []byte("the release is on friday"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("review")}}, nil)
	res, out := call(t, cs, "review", map[string]any{"topic": "release"})
	if res.IsError || out["status"] != "needs_agent" {
		t.Fatalf("review = %v", out)
	}
	reqs := out["requests"].([]any)
	if len(reqs) != 1 || reqs[0].(map[string]any)["address"] != "draft" {
		t.Fatalf("requests = %v", reqs)
	}
	return cs, str(out["run_id"]), ws
}

func TestTurnListAndStatus(t *testing.T) {
	cs, runID, _ := pausedReview(t)
	res, out := call(t, cs, "turn_list", map[string]any{})
	waiting := out["waiting"].([]any)
	if res.IsError || len(waiting) != 1 || waiting[0].(map[string]any)["address"] != "draft" || waiting[0].(map[string]any)["run_id"] != runID {
		t.Fatalf("turn_list = %v", out)
	}
	if !strings.Contains(textOf(res), "draft agent sha256:") {
		t.Errorf("turn_list text = %q: want one line per open turn", textOf(res))
	}
	res, out = call(t, cs, "turn_status", map[string]any{"turn": "draft"})
	if res.IsError {
		t.Fatalf("turn_status = %v", out)
	}
	instr := out["instructions"].(map[string]any)
	if instr["task"] != "Summarise the notes in one sentence." || !strings.Contains(str(instr["manual"]), "asks an agent for a summary") {
		t.Errorf("instructions = %v", instr)
	}
	inputs := out["inputs"].(map[string]any)
	if inputs["topic"] != "release" || utf8.RuneCountInString(str(inputs["notes"])) != 40000+len("notes on release: ") {
		t.Errorf("inputs are not whole: topic %v, notes of %d characters", inputs["topic"], utf8.RuneCountInString(str(inputs["notes"])))
	}
	index := out["context"].([]any)
	locators := map[string]map[string]any{}
	for _, e := range index {
		m := e.(map[string]any)
		locators[str(m["locator"])] = m
		for _, k := range []string{"locator", "type", "summary", "scope", "size"} {
			if _, ok := m[k]; !ok {
				t.Errorf("context entry %v has no %s", m, k)
			}
		}
		if len(m) != 5 {
			t.Errorf("context entry %v carries more than its index line", m)
		}
	}
	if locators["current:0"] == nil || !strings.Contains(str(locators["current:0"]["summary"]), "gather") || locators["input:notes"] == nil || locators["input:topic"] == nil {
		t.Errorf("context = %v", index)
	}
	calls := out["calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["tool"] != "fs.read" || calls[0].(map[string]any)["input_schema"] == nil {
		t.Errorf("calls = %v", calls)
	}
	// a turn the run does not wait on, and a missing turn, are the caller's to fix
	res, out = call(t, cs, "turn_status", map[string]any{"turn": "publish"})
	if code := errorCode(t, res, out); code != "turn_unknown" {
		t.Errorf("unknown turn: %s", code)
	}
	res, out = call(t, cs, "turn_status", map[string]any{})
	if code := errorCode(t, res, out); code != "argument_missing" || !strings.Contains(textOf(res), `"turn"`) {
		t.Errorf("missing turn: %s %s", code, textOf(res))
	}
	res, out = call(t, cs, "turn_status", map[string]any{"turn": "draft", "trun": 1})
	if code := errorCode(t, res, out); code != "argument_unknown" || !strings.Contains(textOf(res), `"trun"`) {
		t.Errorf("unknown argument: %s %s", code, textOf(res))
	}
}

func TestTurnReadPages(t *testing.T) {
	cs, _, _ := pausedReview(t)
	want := "notes on release: " + strings.Repeat("é", 40000)
	var got strings.Builder
	offset := 0
	pages := 0
	for {
		res, out := call(t, cs, "turn_read", map[string]any{"turn": "draft", "locator": "input:notes", "offset": offset})
		if res.IsError {
			t.Fatalf("turn_read = %v", out)
		}
		text := str(out["text"])
		if n := utf8.RuneCountInString(text); n > kmcp.PageMax {
			t.Fatalf("a page of %d characters", n)
		}
		got.WriteString(text)
		pages++
		next, ok := out["next_offset"].(float64)
		if !ok {
			break
		}
		offset = int(next)
	}
	if got.String() != want || pages != 2 {
		t.Errorf("read %d pages, %d characters; want the string whole in 2 pages", pages, utf8.RuneCountInString(got.String()))
	}
	// anything other than a string reads as JSON
	_, out := call(t, cs, "turn_read", map[string]any{"turn": "draft", "locator": "current:0", "limit": 12})
	if str(out["text"]) != `{"notes":"no` || out["next_offset"] != float64(12) {
		t.Errorf("current:0 page = %v", out)
	}
	for _, c := range []struct {
		args map[string]any
		code errcode.Code
	}{
		{map[string]any{"turn": "draft", "locator": "current:9"}, errcode.LocatorUnknown},
		{map[string]any{"turn": "draft", "locator": "input:nosuch"}, errcode.LocatorUnknown},
		{map[string]any{"turn": "draft", "locator": "call:0"}, errcode.LocatorUnknown},
		{map[string]any{"turn": "draft", "locator": "input:notes", "limit": 32001}, errcode.ArgumentsInvalid},
		{map[string]any{"turn": "draft", "locator": "input:notes", "offset": -1}, errcode.ArgumentsInvalid},
		{map[string]any{"turn": "draft", "locator": "input:notes", "offset": "x"}, errcode.ArgumentsInvalid},
		{map[string]any{"turn": "draft"}, errcode.ArgumentMissing},
	} {
		res, out := call(t, cs, "turn_read", c.args)
		if code := errorCode(t, res, out); code != string(c.code) {
			t.Errorf("%v: %s, want %s", c.args, code, c.code)
		}
	}
}

func TestTurnCallsAndComplete(t *testing.T) {
	cs, runID, _ := pausedReview(t)
	read := map[string]any{"turn": "draft", "tool": "fs.read", "input": map[string]any{"path": "facts.txt"}, "call_id": "c1"}
	res, first := call(t, cs, "turn_call", read)
	if res.IsError || first["status"] != "success" || first["address"] != "draft/0" || first["call_id"] != "c1" {
		t.Fatalf("turn_call = %v", first)
	}
	if !strings.Contains(fmt.Sprint(first["output"]), "the release is on friday") {
		t.Errorf("output = %v", first["output"])
	}
	// the same call_id returns the recorded call rather than running twice
	res, again := call(t, cs, "turn_call", read)
	if res.IsError || again["pinned"] != true || again["receipt_id"] != first["receipt_id"] || again["address"] != "draft/0" {
		t.Errorf("pinned call = %v", again)
	}
	other := map[string]any{"turn": "draft", "tool": "fs.read", "input": map[string]any{"path": "other.txt"}, "call_id": "c1"}
	if res, out := call(t, cs, "turn_call", other); errorCode(t, res, out) != "call_id_conflict" {
		t.Errorf("call_id with another input: %v", out)
	}
	if res, out := call(t, cs, "turn_call", map[string]any{"turn": "draft", "tool": "fs.write", "input": map[string]any{}}); errorCode(t, res, out) != "call_not_allowed" {
		t.Errorf("undeclared call: %v", out)
	}
	if res, out := call(t, cs, "turn_call", map[string]any{"turn": "draft"}); errorCode(t, res, out) != "argument_missing" {
		t.Errorf("no tool: %v", out)
	}
	// calls made at once each get their own index
	var wg sync.WaitGroup
	addrs := make([]string, 3)
	for i := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "turn_call", Arguments: map[string]any{
				"turn": "draft", "tool": "fs.read", "input": map[string]any{"path": "facts.txt"}, "call_id": fmt.Sprintf("at-once-%d", i)}})
			if err == nil && !res.IsError {
				addrs[i] = fmt.Sprint(res.StructuredContent.(map[string]any)["address"])
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, a := range addrs {
		if a == "" || seen[a] || a == "draft/0" {
			t.Errorf("calls at once took addresses %v", addrs)
			break
		}
		seen[a] = true
	}
	// a call reads back by its locator
	if _, out := call(t, cs, "turn_read", map[string]any{"turn": "draft", "locator": "call:0"}); !strings.Contains(str(out["text"]), `"call_id":"c1"`) {
		t.Errorf("call:0 = %v", out)
	}
	// an answer its step refuses leaves the turn open
	res, out := call(t, cs, "turn_complete", map[string]any{"turn": "draft", "output": map[string]any{"title": "no summary"}})
	if !res.IsError || out["status"] != "needs_agent" {
		t.Errorf("refused answer: %v", out)
	}
	if res, out := call(t, cs, "turn_complete", map[string]any{"turn": "draft"}); errorCode(t, res, out) != "turn_complete_invalid" {
		t.Errorf("neither output nor failure: %v", out)
	}
	res, out = call(t, cs, "turn_complete", map[string]any{"turn": "draft", "output": map[string]any{"summary": "ship friday"}})
	if res.IsError || out["status"] != "sealed" || out["outcome"] != "completed" || out["result"].(map[string]any)["published"] != "ship friday" {
		t.Fatalf("turn_complete = %v", out)
	}
	if out["run_id"] != runID {
		t.Errorf("sealed another run: %v", out["run_id"])
	}
	if res, out := call(t, cs, "turn_status", map[string]any{"turn": "draft"}); errorCode(t, res, out) != "turn_unknown" {
		t.Errorf("a completed turn still reads: %v", out)
	}
}

func TestTurnReceiptCommitsCalls(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "facts.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("review")}}, nil)
	call(t, cs, "review", map[string]any{"topic": "t"})
	for i := 0; i < 2; i++ {
		call(t, cs, "turn_call", map[string]any{"turn": "draft", "tool": "fs.read", "input": map[string]any{"path": "facts.txt"}})
	}
	_, out := call(t, cs, "turn_complete", map[string]any{"turn": "draft", "output": map[string]any{"summary": "s"}})
	rep, err := k.Verify(context.Background(), str(out["receipt_id"]))
	if err != nil || rep.Status != "verified" {
		t.Fatalf("verify = %+v %v", rep, err)
	}
	// run + gather + draft + 2 calls + publish
	if rep.Receipts != 6 {
		t.Errorf("the tree holds %d receipts, want 6 (the turn commits its 2 calls)", rep.Receipts)
	}
}

func TestTurnFailure(t *testing.T) {
	cs, _, _ := pausedReview(t)
	if res, out := call(t, cs, "turn_complete", map[string]any{"turn": "draft", "failure": map[string]any{"reason": ""}}); errorCode(t, res, out) != "turn_complete_invalid" {
		t.Errorf("empty reason: %v", out)
	}
	res, out := call(t, cs, "turn_complete", map[string]any{"turn": "draft", "failure": map[string]any{"reason": "the notes are empty"}})
	if !res.IsError || out["outcome"] != "failed" {
		t.Fatalf("failure = %v", out)
	}
	e := out["error"].(map[string]any)
	if e["code"] != "turn_failed" || !strings.Contains(str(e["message"]), "the notes are empty") {
		t.Errorf("error = %v", e)
	}
}

func TestRunScopedServer(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("review")}}, nil)
	_, out := call(t, cs, "review", map[string]any{"topic": "scoped"})
	runID := str(out["run_id"])
	_, other := call(t, cs, "review", map[string]any{"topic": "other"})

	scoped := connect(t, k, kmcp.Options{RunID: runID}, nil)
	tools, err := scoped.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 6 {
		t.Fatalf("--run lists %d tools (%v), want the six turn tools", len(tools.Tools), err)
	}
	_, list := call(t, scoped, "turn_list", map[string]any{})
	if w := list["waiting"].([]any); len(w) != 1 || w[0].(map[string]any)["run_id"] != runID {
		t.Errorf("turn_list = %v", list)
	}
	if _, err := scoped.CallTool(context.Background(), &mcp.CallToolParams{Name: "turn_status", Arguments: map[string]any{"turn": "draft", "run_id": other["run_id"]}}); err == nil {
		t.Error("a --run server served another run")
	}
	res, done := call(t, scoped, "turn_complete", map[string]any{"turn": "draft", "output": map[string]any{"summary": "done"}})
	if res.IsError || done["status"] != "sealed" || done["outcome"] != "completed" {
		t.Fatalf("turn_complete = %v", done)
	}
	// two runs open in the first session: a turn both wait on needs run_id
	if res, out := call(t, cs, "turn_status", map[string]any{"turn": "draft"}); res.IsError {
		t.Errorf("the one run still waiting on draft is the one meant: %v", out)
	}
}

// Only one driver works a run: a turn call refuses while another holds it.
func TestTurnCallRefusedWhileDrivenElsewhere(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("review")}}, nil)
	_, out := call(t, cs, "review", map[string]any{"topic": "t"})
	drv, err := k.JournalForTest().Drive(str(out["run_id"]))
	if err != nil {
		t.Fatal(err)
	}
	res, refused := call(t, cs, "turn_call", map[string]any{"turn": "draft", "tool": "fs.read", "input": map[string]any{"path": "x"}})
	if code := errorCode(t, res, refused); code != "run_driven_elsewhere" {
		t.Errorf("turn_call while driven elsewhere: %v", refused)
	}
	drv.Release()
	if res, out := call(t, cs, "turn_call", map[string]any{"turn": "draft", "tool": "fs.read", "input": map[string]any{"path": "x"}}); res.IsError && errorCode(t, res, out) == "run_driven_elsewhere" {
		t.Errorf("the driver's release did not free the run: %v", out)
	}
}

// With two runs waiting on the same turn, a turn tool needs run_id, and
// names the runs it could mean.
func TestTurnToolsNeedRunIDWhenAmbiguous(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("review")}}, nil)
	_, a := call(t, cs, "review", map[string]any{"topic": "a"})
	_, b := call(t, cs, "review", map[string]any{"topic": "b"})
	res, out := call(t, cs, "turn_status", map[string]any{"turn": "draft"})
	if code := errorCode(t, res, out); code != "mcp_run_ambiguous" || !strings.Contains(textOf(res), str(a["run_id"])) || !strings.Contains(textOf(res), str(b["run_id"])) {
		t.Errorf("ambiguous turn: %s %s", code, textOf(res))
	}
	if res, out := call(t, cs, "turn_status", map[string]any{"turn": "draft", "run_id": b["run_id"]}); res.IsError || out["run_id"] != b["run_id"] {
		t.Errorf("with run_id: %v", out)
	}
	// the other method that holds a turn is a tool of its own
	if res, out := call(t, cs, "review_second-look", map[string]any{"topic": "c"}); res.IsError || out["status"] != "needs_agent" || out["method"] != "second-look" {
		t.Errorf("review_second-look = %v", out)
	}
}
