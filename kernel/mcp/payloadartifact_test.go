package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/sdk/canon"
)

// A turn call the floor stops on a payload past 64 KiB (a command whose
// argv is that long) answers with the request's payload_artifact, not the
// payload, as the paused envelope and runx history show it; the same call
// made again shows the same descriptor, and the content read back digests
// to summary.payload_digest.
func TestTurnCallLargeGatePayloadRidesAsArtifact(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("gated")}}, nil)
	_, out := call(t, cs, "gated", map[string]any{})
	runID := str(out["run_id"])
	build := map[string]any{"turn": "plan", "tool": "command.execute", "call_id": "big",
		"input": map[string]any{"argv": []string{"sh", "-c", "true # " + strings.Repeat("y", 70<<10)}}}
	res, pending := call(t, cs, "turn_call", build)
	if res.IsError || pending["status"] != "pending" {
		t.Fatalf("a call the floor stops = %.300v", pending)
	}
	w := pending["waiting"].([]any)[0].(map[string]any)
	desc, _ := w["payload_artifact"].(map[string]any)
	digest := str(w["summary"].(map[string]any)["payload_digest"])
	if w["payload"] != nil || desc == nil || str(desc["digest"]) != digest || str(desc["schema"]) != "runx.artifact.v1" {
		t.Fatalf("the waiting request = %.400v", w)
	}
	_, again := call(t, cs, "turn_call", build)
	if got := again["waiting"].([]any)[0].(map[string]any)["payload_artifact"]; toText(got) != toText(desc) {
		t.Fatalf("the same call again shows %v, first %v", got, desc)
	}
	read, err := k.ReadRun(context.Background(), runID, "")
	if err != nil {
		t.Fatal(err)
	}
	var shown any
	for _, r := range read.Waiting {
		if r.Address == "plan/0" {
			shown = r.PayloadArtifact
		}
	}
	var shownMap map[string]any
	_ = json.Unmarshal([]byte(toText(shown)), &shownMap)
	if toText(shownMap) != toText(desc) {
		t.Fatalf("history shows %v, the call showed %v", toText(shown), toText(desc))
	}
	payload, err := k.ReadRequestPayload(context.Background(), runID, "plan/0")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := canon.Digest(json.RawMessage(payload)); err != nil || d != digest {
		t.Fatalf("a host recomputes %s, the summary says %s (%v)", d, digest, err)
	}
}
