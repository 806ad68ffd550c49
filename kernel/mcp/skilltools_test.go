package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
)

func TestToolsList(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("echo"), testdata("review")}}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		if !kmcp.ValidToolName.MatchString(tl.Name) || len(tl.Name) > kmcp.MaxToolName {
			t.Errorf("tool name %q is not valid for strict clients", tl.Name)
		}
		tools[tl.Name] = tl
	}
	for _, want := range []string{"echo", "review", "review_second-look", "turn_list", "turn_status", "turn_read", "turn_call", "turn_complete", "call_cancel"} {
		if tools[want] == nil {
			t.Errorf("tool %s is not listed", want)
		}
	}
	if tools["review_quick"] != nil {
		t.Error("a method without a turn is offered beside the default")
	}
	echo := tools["echo"]
	if !strings.HasPrefix(echo.Description, "Echo a message.\n\nEcho gives back the message") {
		t.Errorf("description = %q: want the method's description and the manual's first paragraph", echo.Description)
	}
	schema := echo.InputSchema.(map[string]any)
	if schema["additionalProperties"] != false || schema["type"] != "object" {
		t.Errorf("schema = %v", schema)
	}
	if req, _ := schema["required"].([]any); len(req) != 1 || req[0] != "message" {
		t.Errorf("required = %v, want [message]", schema["required"])
	}
	props := schema["properties"].(map[string]any)
	msg := props["message"].(map[string]any)
	times := props["times"].(map[string]any)
	if msg["type"] != "string" || msg["description"] != "What to echo." || times["type"] != "integer" || times["default"] != float64(1) {
		t.Errorf("properties = %v", props)
	}
}

func TestCallSealsWithVerifiedReceipt(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("echo")}}, nil)
	res, out := call(t, cs, "echo", map[string]any{"message": "hi", "times": 2})
	if res.IsError || out["status"] != "sealed" || out["outcome"] != "completed" {
		t.Fatalf("result = %v", out)
	}
	if got := out["result"].(map[string]any)["echo"]; got != "hi hi" {
		t.Errorf("echo = %v", got)
	}
	rep, err := k.Verify(context.Background(), str(out["receipt_id"]))
	if err != nil || rep.Status != "verified" {
		t.Fatalf("verify = %+v, %v", rep, err)
	}
}

func TestBadArgumentsNameTheField(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("echo")}}, nil)
	for _, c := range []struct {
		args       any
		code, text string
	}{
		{map[string]any{"mesage": "hi"}, "input_unknown", `"mesage"`},
		{map[string]any{"message": 5}, "input_type_invalid", `"message"`},
		{map[string]any{}, "input_missing", `"message"`},
		{map[string]any{"message": "x", "tags": "not-a-list"}, "input_type_invalid", `"tags"`},
		{[]any{1, 2}, "arguments_invalid", "one JSON object"},
	} {
		res, out := call(t, cs, "echo", c.args)
		if code := errorCode(t, res, out); code != c.code && !(strings.Contains(textOf(res), c.code)) {
			t.Errorf("%v: code %q, want %q (%v)", c.args, code, c.code, out)
		}
		if !strings.Contains(textOf(res), c.text) {
			t.Errorf("%v: %q does not name %s", c.args, textOf(res), c.text)
		}
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("echo")}}, nil)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nosuch", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("err = %v, want a JSON-RPC error naming the unknown tool", err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "turn_list", Arguments: map[string]any{"run_id": "run_nosuch"}}); err == nil || !strings.Contains(err.Error(), "unknown run") {
		t.Fatalf("err = %v, want a JSON-RPC error naming the unknown run", err)
	}
}

func TestStartRefusals(t *testing.T) {
	k := openKernel(t, "")
	if _, err := kmcp.New(k, kmcp.Options{Refs: []string{testdata("echo"), testdata("echo")}}); err == nil || !strings.Contains(err.Error(), "both be the tool") {
		t.Errorf("two tools of one name: %v", err)
	}
	if _, err := kmcp.New(k, kmcp.Options{RunID: "run_nosuch"}); err == nil {
		t.Error("an unknown --run was served")
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
