package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// call_cancel answers at once. A command already dispatched is an effect in
// flight: it runs to its end and settles as it actually ended, with the
// cancel recorded beside it; a settled call is past cancelling.
func TestCallCancel(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("build")}}, nil)
	_, out := call(t, cs, "build", map[string]any{})
	runID := str(out["run_id"])
	if out["status"] != "needs_agent" {
		t.Fatalf("build = %v", out)
	}
	mark := filepath.Join(ws, "mark")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "turn_call", Arguments: map[string]any{
			"turn": "plan", "tool": "command.execute", "call_id": "build-1",
			"input": map[string]any{"argv": []string{"sh", "-c", "echo started > " + mark + "; sleep 1; echo built"}}}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	waitFor(t, func() bool { _, err := os.Stat(mark); return err == nil })
	res, cancelled := call(t, cs, "call_cancel", map[string]any{"call": "plan/0"})
	if res.IsError || cancelled["state"] != "executing" || cancelled["cancel_delivered"] != true {
		t.Fatalf("call_cancel in flight = %v", cancelled)
	}
	settled := <-done
	body := settled.StructuredContent.(map[string]any)
	if settled.IsError || body["status"] != "success" || !strings.Contains(toText(body["output"]), "built") {
		t.Fatalf("the command in flight must run to its end and settle as it ended: %v", body)
	}
	read, err := k.ReadRun(context.Background(), runID, "")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range read.Events["calls"] {
		types = append(types, ev.Type)
		if ev.Type == "call.success" && !strings.Contains(string(ev.Data), `"call_id":"build-1"`) {
			t.Errorf("the call's event does not carry its call_id: %s", ev.Data)
		}
	}
	if strings.Join(types, ",") != "call.cancel_requested,call.success" {
		t.Errorf("calls stream = %v, want the cancel recorded beside the call", types)
	}
	res, again := call(t, cs, "call_cancel", map[string]any{"call": "plan/0"})
	if res.IsError || again["state"] != "success" || again["cancel_delivered"] != false {
		t.Errorf("call_cancel of a settled call = %v", again)
	}
	for _, addr := range []string{"plan/9", "plan", "x#plan/0"} {
		if res, out := call(t, cs, "call_cancel", map[string]any{"call": addr}); errorCode(t, res, out) != "call_unknown" {
			t.Errorf("call_cancel %s = %v", addr, out)
		}
	}
}

func toText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
