package turn

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

func agentStep(ask bool) *pkg.Step {
	return &pkg.Step{ID: "draft", Kind: pkg.KindAgent, Agent: &pkg.AgentStep{Ask: ask, Calls: &pkg.Calls{
		Tools: []string{"fs.read"}, Operations: []string{"mail/send"}, Skills: []string{"./child"}}}}
}

// A turn is offered what its calls name, in their order, and ask_human
// only where the step says ask: true.
func TestCallables(t *testing.T) {
	want := []Callable{{"fs.read", "tool"}, {"mail/send", "operation"}, {"skill:./child", "skill"}, {AskHuman, "ask_human"}}
	if got := Callables(agentStep(true)); !reflect.DeepEqual(got, want) {
		t.Errorf("Callables = %v, want %v", got, want)
	}
	if got := Callables(agentStep(false)); len(got) != 3 {
		t.Errorf("without ask: %v", got)
	}
	if got := Callables(&pkg.Step{ID: "x", Kind: pkg.KindTool}); got != nil {
		t.Errorf("a step that is no turn offers %v", got)
	}
}

// Each call a turn names runs as the step of its kind, under the turn
// step's effects and reach; anything else is refused with its code.
func TestCallStep(t *testing.T) {
	step := agentStep(true)
	for tool, kind := range map[string]pkg.StepKind{"fs.read": pkg.KindTool, "mail/send": pkg.KindOperation, "skill:./child": pkg.KindSkill} {
		s, err := CallStep(step, tool)
		if err != nil || s == nil || s.Kind != kind || s.ID != step.ID {
			t.Errorf("%s: %+v %v, want a %s step", tool, s, err, kind)
		}
	}
	if s, _ := CallStep(step, "mail/send"); s.Operation.Connector != "mail" || s.Operation.Operation != "send" {
		t.Errorf("operation split as %+v", s.Operation)
	}
	if s, err := CallStep(step, AskHuman); s != nil || err != nil {
		t.Errorf("ask_human: %+v %v, want no step", s, err)
	}
	for _, c := range []struct {
		step *pkg.Step
		tool string
		code string
	}{
		{step, "fs.write", "call_not_allowed"},
		{step, "skill:./other", "call_not_allowed"},
		{step, "./child", "call_not_allowed"},
		{agentStep(false), AskHuman, "call_not_allowed"},
		{&pkg.Step{ID: "x", Kind: pkg.KindTool}, "fs.read", "turn_not_agent"},
	} {
		if _, err := CallStep(c.step, c.tool); string(contract.CodeOf(err)) != c.code {
			t.Errorf("%s: %v, want %s", c.tool, err, c.code)
		}
	}
}

// ask_human takes a reason or one to three well-formed questions; every
// other input is refused with ask_human_input_invalid.
func TestAskRequest(t *testing.T) {
	step := agentStep(true)
	kind, payload, err := AskRequest(step, json.RawMessage(`{"reason":"send it?"}`))
	if err != nil || kind != contract.RequestApproval || payload["reason"] != "send it?" || payload["gate"] != "ask_human" {
		t.Errorf("reason: %s %v %v", kind, payload, err)
	}
	kind, _, err = AskRequest(step, json.RawMessage(`{"questions":[{"id":"q","prompt":"which?","options":[{"label":"a"}]}]}`))
	if err != nil || kind != contract.RequestQuestion {
		t.Errorf("questions: %s %v", kind, err)
	}
	for _, raw := range []string{
		`{}`, `[]`, `{"reason":"x","questions":[{"id":"q","prompt":"p"}]}`, `{"reason":"x","extra":1}`,
		`{"questions":[{"id":"a","prompt":"p"},{"id":"b","prompt":"p"},{"id":"c","prompt":"p"},{"id":"d","prompt":"p"}]}`,
		`{"questions":[{"id":"","prompt":"p"}]}`, `{"questions":[{"id":"q","prompt":""}]}`, `{"questions":[null]}`,
		`{"questions":[{"id":"q","prompt":"p"},{"id":"q","prompt":"p"}]}`,
		`{"questions":[{"id":"q","prompt":"p","options":[{"label":"1"},{"label":"2"},{"label":"3"},{"label":"4"},{"label":"5"}]}]}`,
		`{"questions":[{"id":"q","prompt":"p","options":[{"label":""}]}]}`,
	} {
		if _, _, err := AskRequest(step, json.RawMessage(raw)); contract.CodeOf(err) != "ask_human_input_invalid" {
			t.Errorf("%s: %v, want ask_human_input_invalid", raw, err)
		}
	}
}

// A turn's answer is a failure only as an object holding just failure with
// a reason, and only where the step declares no output named failure.
func TestFailure(t *testing.T) {
	step := &pkg.Step{ID: "draft"}
	if reason, ok := Failure(step, map[string]any{"failure": map[string]any{"reason": "no access"}}); !ok || reason != "no access" {
		t.Errorf("failure: %q %v", reason, ok)
	}
	for _, out := range []any{
		map[string]any{"failure": map[string]any{"reason": ""}},
		map[string]any{"failure": map[string]any{"reason": "x"}, "other": 1},
		map[string]any{"failure": "x"},
		"failure",
	} {
		if _, ok := Failure(step, out); ok {
			t.Errorf("%v read as a failure", out)
		}
	}
	declared := &pkg.Step{ID: "draft", Outputs: map[string]*pkg.OutputSpec{"failure": {}}}
	if _, ok := Failure(declared, map[string]any{"failure": map[string]any{"reason": "x"}}); ok {
		t.Error("a declared output named failure read as the turn's failure")
	}
}

// A turn's calls read back from its step records in index order; a call
// its host cancelled reads cancelled, and a record that does not decode
// stops the read with journal_record_invalid.
func TestCalls(t *testing.T) {
	ok, _ := json.Marshal(Recorded{Kind: "call", Tool: "fs.read", InputDigest: "d1", CallID: "c1", Output: json.RawMessage(`{"x":1}`)})
	cancelled, _ := json.Marshal(contract.ErrorBody{Code: errcode.CallCancelled, Detail: map[string]any{"tool": "fs.read", "input_digest": "d2", "call_id": "c2"}})
	steps := map[string]*journal.Step{
		"draft/1":   {Status: contract.StepFailed, Error: cancelled},
		"draft/0":   {Status: contract.StepSuccess, Output: ok},
		"draft/0/x": {Status: contract.StepSuccess},
		"other/0":   {Status: contract.StepSuccess},
		"draft":     {Status: contract.StepSuccess},
	}
	calls, err := Calls(steps, "draft")
	if err != nil || len(calls) != 2 {
		t.Fatalf("Calls = %+v %v", calls, err)
	}
	if c := calls[0]; c.Index != 0 || c.CallID != "c1" || c.Tool != "fs.read" || string(c.Output) != `{"x":1}` {
		t.Errorf("call 0: %+v", c)
	}
	if c := calls[1]; c.Index != 1 || c.Status != contract.CallCancelled || c.CallID != "c2" || c.InputDigest != "d2" {
		t.Errorf("call 1: %+v", c)
	}
	steps["draft/2"] = &journal.Step{Status: contract.StepSuccess, Output: json.RawMessage(`[`)}
	if _, err := Calls(steps, "draft"); contract.CodeOf(err) != errcode.JournalRecordInvalid {
		t.Errorf("undecodable record: %v, want %s", err, errcode.JournalRecordInvalid)
	}
}

// A call_id names its recorded call; a call without one names only a
// call the floor stopped, of the same tool and input.
func TestPinnedCall(t *testing.T) {
	floor := PendingRecord(Pending{Index: 0, Tool: "fs.read", InputDigest: "d", Floor: true})
	calls := []CallRecord{floor, {Index: 1, CallID: "c1", Tool: "fs.read", InputDigest: "d", Status: contract.CallSuccess}}
	if c := pinnedCall(calls, "c1", "fs.read", "d"); c == nil || c.Index != 1 {
		t.Errorf("by call_id: %+v", c)
	}
	if c := pinnedCall(calls, "", "fs.read", "d"); c == nil || c.Index != 0 {
		t.Errorf("a floor-stopped call made again: %+v", c)
	}
	if c := pinnedCall(calls, "", "fs.read", "other"); c != nil {
		t.Errorf("another input named %+v", c)
	}
	if c := pinnedCall(calls, "c9", "fs.read", "d"); c != nil {
		t.Errorf("an unknown call_id named %+v", c)
	}
}
