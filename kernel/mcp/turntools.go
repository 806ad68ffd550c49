package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// The turn tools' names: fixed, the same in every session.
const (
	ToolTurnList     = "turn_list"
	ToolTurnStatus   = "turn_status"
	ToolTurnRead     = "turn_read"
	ToolTurnCall     = "turn_call"
	ToolTurnComplete = "turn_complete"
	ToolCallCancel   = "call_cancel"
)

var runIDProp = map[string]any{"type": "string", "description": "The run whose turn this is. Needed only when this session has more than one run open."}

func objectSchema(props map[string]any, required ...string) map[string]any {
	props["run_id"] = runIDProp
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var turnProp = map[string]any{"type": "string", "description": "The turn's address: the id of the step that asks it, or a child run's place first, as in answer/0#report."}

func (s *Server) turnTools() []served {
	tool := func(name, desc string, schema map[string]any, h mcp.ToolHandler) served {
		return served{tool: &mcp.Tool{Name: name, Description: desc, InputSchema: schema}, handler: h, source: "runx turn tools"}
	}
	return []served{
		tool(ToolTurnList, "List everything the run waits on: each open agent turn, approval, question or wait, one line each, with its address and request digest.",
			objectSchema(map[string]any{}), s.turnList),
		tool(ToolTurnStatus, "Read an open turn: its instructions (task and manual) and inputs whole, its context as an index of locators (never their data), the calls it may make with their input schemas, and the calls it has made.",
			objectSchema(map[string]any{"turn": turnProp}, "turn"), s.turnStatus),
		tool(ToolTurnRead, "Read what a locator of a turn names (current:<n>, historical:<n>, input:<name>, call:<index>): a string as it is, anything else as JSON, in pages of at most 32000 characters with the next_offset that reads on.",
			objectSchema(map[string]any{
				"turn":    turnProp,
				"locator": map[string]any{"type": "string", "description": "current:<n>, historical:<n>, input:<name> or call:<index>, as turn_status lists."},
				"offset":  map[string]any{"type": "integer", "minimum": 0, "description": "The character to read from (a previous page's next_offset)."},
				"limit":   map[string]any{"type": "integer", "minimum": 1, "maximum": PageMax, "description": "At most this many characters (at most 32000)."},
			}, "turn", "locator"), s.turnRead),
		tool(ToolTurnCall, "Make one call the turn allows (turn_status lists them), admitted under the run's authority and recorded in the run. Pin your own call_id to make the call safe to repeat: the same call_id returns the recorded call.",
			objectSchema(map[string]any{
				"turn":    turnProp,
				"tool":    map[string]any{"type": "string", "description": "The call, as turn_status lists it (a capability id, <connector>/<operation>, or skill:<ref>)."},
				"input":   map[string]any{"type": "object", "description": "The call's input."},
				"call_id": map[string]any{"type": "string", "description": "Your id for this call, unique within the turn."},
				"act":     map[string]any{"type": "string", "description": "A skill call's act, stated beside the child's inputs: it becomes the child run's act."},
				"reuse": map[string]any{"type": "object", "description": "A skill call's reuse option, {max_age_seconds}: an earlier sealed run of the skill under the same resolved inputs and child context, sealed at most that long ago and whose reads of local state still give what they gave, is the call's result instead of a new run. The answer's reuse names the source reused, or says why the call recomputed.",
					"properties": map[string]any{"max_age_seconds": map[string]any{"type": "integer", "minimum": 1}}},
			}, "turn", "tool"), s.turnCall),
		tool(ToolTurnComplete, "End a turn with its output, or with {\"failure\": {\"reason\": ...}} when the act cannot be done; the run then goes on and this returns where it got to.",
			objectSchema(map[string]any{
				"turn":    turnProp,
				"output":  map[string]any{"description": "The turn's output, holding the outputs its step declares."},
				"failure": map[string]any{"type": "object", "properties": map[string]any{"reason": map[string]any{"type": "string"}}, "required": []string{"reason"}, "additionalProperties": false},
			}, "turn"), s.turnComplete),
		tool(ToolCallCancel, "Cancel one call of the run by its address (<turn>/<n>, as answer/0 is a turn's first call); answers at once with how the call stands.",
			objectSchema(map[string]any{"call": map[string]any{"type": "string", "description": "The call's address."}}, "call"), s.callCancel),
	}
}

// runFor picks the run a turn tool addresses. A run the server does not
// serve is a protocol error; a missing choice between several is the
// caller's to fix.
func (s *Server) runFor(ctx context.Context, runID, turn string) (string, *mcp.CallToolResult, error) {
	runs := s.sessionRuns()
	if runID != "" {
		if !contains(runs, runID) {
			return "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown run %q: this server serves %s", runID, runList(runs))}
		}
		return runID, nil, nil
	}
	switch len(runs) {
	case 0:
		return "", errorResult(contract.Errorf(errcode.MCPNoRunOpen, "no run is open in this session yet; call a skill tool first")), nil
	case 1:
		return runs[0], nil, nil
	}
	if turn != "" {
		var match []string
		for _, r := range runs {
			if read, err := s.k.ReadRun(ctx, r, ""); err == nil {
				for _, w := range read.Waiting {
					if w.Address == turn {
						match = append(match, r)
						break
					}
				}
			}
		}
		if len(match) == 1 {
			return match[0], nil, nil
		}
	}
	return "", errorResult(contract.Errorf(errcode.MCPRunAmbiguous, "argument \"run_id\" is required: this session has runs %s open", strings.Join(runs, ", "))), nil
}

func runList(runs []string) string {
	if len(runs) == 0 {
		return "no run yet"
	}
	return "run " + strings.Join(runs, ", ")
}

type listArgs struct {
	RunID string `json:"run_id"`
}

func (s *Server) turnList(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a listArgs
	if err := decodeArgs(req.Params.Arguments, &a, []string{"run_id"}); err != nil {
		return errorResult(err), nil
	}
	runs := s.sessionRuns()
	if a.RunID != "" {
		if _, refused, err := s.runFor(ctx, a.RunID, ""); err != nil || refused != nil {
			return refused, err
		}
		runs = []string{a.RunID}
	}
	type line struct {
		RunID         string               `json:"run_id"`
		Address       string               `json:"address"`
		Kind          contract.RequestKind `json:"kind"`
		RequestDigest string               `json:"request_digest"`
	}
	out := struct {
		Waiting []line `json:"waiting"`
		Sealed  []any  `json:"sealed,omitempty"`
	}{Waiting: []line{}}
	var text strings.Builder
	for _, r := range runs {
		run.WaitTurnCallsIdle(ctx, r)
		read, err := s.k.ReadRun(ctx, r, "")
		if err != nil {
			return errorResult(err), nil
		}
		if read.State == journal.StateSealed {
			out.Sealed = append(out.Sealed, map[string]string{"run_id": r, "outcome": string(read.Outcome), "receipt_id": read.ReceiptID})
			fmt.Fprintf(&text, "%s sealed %s (receipt %s)\n", r, read.Outcome, read.ReceiptID)
			continue
		}
		for _, w := range read.Waiting {
			out.Waiting = append(out.Waiting, line{RunID: r, Address: w.Address, Kind: w.Kind, RequestDigest: w.RequestDigest})
			fmt.Fprintf(&text, "%s %s %s %s\n", r, w.Address, w.Kind, w.RequestDigest)
		}
	}
	res := jsonResult(out, false)
	if text.Len() == 0 {
		text.WriteString("nothing is waiting\n")
	}
	res.Content = append([]mcp.Content{&mcp.TextContent{Text: text.String()}}, res.Content...)
	return res, nil
}

type turnArgs struct {
	RunID string `json:"run_id"`
	Turn  string `json:"turn"`
}

// openTurn reads the turn a call names, once its calls have settled.
func (s *Server) openTurn(ctx context.Context, runID, turn string) (*run.OpenTurn, string, *mcp.CallToolResult, error) {
	if turn == "" {
		return nil, "", errorResult(missing("turn")), nil
	}
	r, refused, err := s.runFor(ctx, runID, turn)
	if err != nil || refused != nil {
		return nil, "", refused, err
	}
	run.WaitTurnCallsIdle(ctx, r)
	t, err := s.k.Turn(ctx, r, turn)
	if err != nil {
		if contract.CodeOf(err) == errcode.RunNotFound {
			return nil, "", nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return nil, "", errorResult(err), nil
	}
	return t, r, nil, nil
}

func (s *Server) turnStatus(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a turnArgs
	if err := decodeArgs(req.Params.Arguments, &a, []string{"run_id", "turn"}); err != nil {
		return errorResult(err), nil
	}
	t, runID, refused, err := s.openTurn(ctx, a.RunID, a.Turn)
	if err != nil || refused != nil {
		return refused, err
	}
	entries, err := s.contextOf(ctx, t)
	if err != nil {
		return errorResult(err), nil
	}
	index := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		index = append(index, map[string]any{"locator": e.Locator, "type": e.Type, "summary": e.Summary, "scope": e.Scope, "size": e.Size})
	}
	var payload struct {
		Task    string         `json:"task"`
		Outputs map[string]any `json:"outputs"`
	}
	_ = json.Unmarshal(t.Request.Payload, &payload)
	made := make([]map[string]any, 0, len(t.Calls))
	for _, c := range t.Calls {
		m := map[string]any{"index": c.Index, "address": t.Address + "/" + fmt.Sprint(c.Index), "call_id": c.CallID, "tool": c.Tool, "status": c.Status, "receipt_id": c.ReceiptID}
		if c.Reuse != nil {
			m["reuse"] = c.Reuse
		}
		made = append(made, m)
	}
	out := map[string]any{
		"run_id": runID, "turn": t.Address, "request_digest": t.Request.RequestDigest,
		"skill": t.Package.Name, "method": t.Method.Name, "step_id": t.Local,
		"instructions": map[string]any{"task": payload.Task, "manual": t.Package.Manual, "manual_digest": t.Package.ManualDigest},
		"inputs":       t.Inputs,
		"outputs":      payload.Outputs,
		"context":      index,
		"calls":        s.callables(ctx, t),
		"made":         made,
	}
	return jsonResult(out, false), nil
}

type completeArgs struct {
	RunID   string          `json:"run_id"`
	Turn    string          `json:"turn"`
	Output  json.RawMessage `json:"output"`
	Failure *struct {
		Reason string `json:"reason"`
	} `json:"failure"`
}

// turnComplete answers the turn through Kernel.Resume, bound to the digest
// of the request it answers, exactly as `runx resume` would.
func (s *Server) turnComplete(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a completeArgs
	if err := decodeArgs(req.Params.Arguments, &a, []string{"run_id", "turn", "output", "failure"}); err != nil {
		return errorResult(err), nil
	}
	hasOutput := len(a.Output) > 0 && string(a.Output) != "null"
	if hasOutput == (a.Failure != nil) {
		return errorResult(contract.Errorf(errcode.TurnCompleteInvalid, "give exactly one of \"output\" (the turn's output) and \"failure\" ({\"reason\": ...})")), nil
	}
	if a.Failure != nil && strings.TrimSpace(a.Failure.Reason) == "" {
		return errorResult(contract.Errorf(errcode.TurnCompleteInvalid, "argument \"failure.reason\" must say why the act cannot be done")), nil
	}
	t, runID, refused, err := s.openTurn(ctx, a.RunID, a.Turn)
	if err != nil || refused != nil {
		return refused, err
	}
	for _, c := range t.Calls {
		if c.Status == contract.CallPending {
			return errorResult(contract.Errorf(errcode.TurnCallsPending, "call %s/%d (%s) still waits on a person; a turn completes once none of its calls is pending (make the call again with call_id %q to collect its answer)", t.Address, c.Index, c.Tool, c.CallID)), nil
		}
	}
	value := a.Output
	if a.Failure != nil {
		value, _ = json.Marshal(map[string]any{"failure": map[string]string{"reason": a.Failure.Reason}})
	}
	doc, _ := json.Marshal(contract.ResumeDocument{Answers: map[string]*contract.ResumeEntry{
		t.Address: {RequestDigest: t.Request.RequestDigest, Value: value},
	}})
	env, err := s.k.Resume(s.withProgress(ctx, req), run.ResumeRequest{RunID: runID, Document: doc})
	if err != nil {
		return errorResult(err), nil
	}
	res := envelopeResult(env)
	if len(env.RefusedAnswers) > 0 {
		res.IsError = true
	}
	return res, nil
}

type callArgs struct {
	RunID  string          `json:"run_id"`
	Turn   string          `json:"turn"`
	Tool   string          `json:"tool"`
	Input  json.RawMessage `json:"input"`
	CallID string          `json:"call_id"`
	Act    string          `json:"act"`
	Reuse  json.RawMessage `json:"reuse"`
}

func (s *Server) turnCall(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a callArgs
	if err := decodeArgs(req.Params.Arguments, &a, []string{"run_id", "turn", "tool", "input", "call_id", "act", "reuse"}); err != nil {
		return errorResult(err), nil
	}
	switch {
	case a.Turn == "":
		return errorResult(missing("turn")), nil
	case a.Tool == "":
		return errorResult(missing("tool")), nil
	}
	runID, refused, err := s.runFor(ctx, a.RunID, a.Turn)
	if err != nil || refused != nil {
		return refused, err
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	res, err := s.k.TurnCall(callCtx, run.TurnCallRequest{RunID: runID, Turn: a.Turn, Tool: a.Tool, Input: a.Input, CallID: a.CallID, Act: a.Act, Reuse: a.Reuse})
	if err != nil {
		if contract.CodeOf(err) == errcode.RunNotFound {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return errorResult(err), nil
	}
	return jsonResult(res, res.Status != contract.CallSuccess && res.Status != contract.CallPending), nil
}

type cancelArgs struct {
	RunID string `json:"run_id"`
	Call  string `json:"call"`
}

// callCancel cancels one call of the run by its address and answers at
// once with how it stands (Kernel.CancelTurnCall).
func (s *Server) callCancel(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a cancelArgs
	if err := decodeArgs(req.Params.Arguments, &a, []string{"run_id", "call"}); err != nil {
		return errorResult(err), nil
	}
	if a.Call == "" {
		return errorResult(missing("call")), nil
	}
	turn, _, _ := strings.Cut(a.Call, "/")
	runID, refused, err := s.runFor(ctx, a.RunID, turn)
	if err != nil || refused != nil {
		return refused, err
	}
	res, err := s.k.CancelTurnCall(ctx, runID, a.Call)
	if err != nil {
		return errorResult(err), nil
	}
	return jsonResult(res, false), nil
}
