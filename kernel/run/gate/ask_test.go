package gate

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/canon"
)

// TestAskBindsTheRequest binds what an agent step asks to its run, its
// address and its exact content: the digest is over the run, the local
// address, the kind and the payload's digest, and another run or another
// input is another request.
func TestAskBindsTheRequest(t *testing.T) {
	p := &pkg.Package{Name: "triage", ManualDigest: "sha256:m"}
	step := &pkg.Step{ID: "think", Kind: pkg.KindAgent, Agent: &pkg.AgentStep{Task: "sort the issues"}}
	at := Asked{RunID: "run_1", Local: "think", Address: "run_0>think", StepID: "think"}
	req, err := Ask(at, p, step, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if req.Kind != contract.RequestAgent || req.Address != "run_0>think" || req.Summary.StepID != "think" {
		t.Fatalf("request %+v", req)
	}
	var payload map[string]any
	if err := json.Unmarshal(req.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	if payload["task"] != "sort the issues" || payload["skill"] != "triage" || payload["manual_digest"] != "sha256:m" {
		t.Fatalf("payload %v", payload)
	}
	if in, ok := payload["inputs"].(map[string]any); !ok || len(in) != 0 {
		t.Fatalf("no inputs are asked as {}: %v", payload["inputs"])
	}
	want, _ := canon.Digest(map[string]any{"run_id": "run_1", "address": "think", "kind": "agent", "payload_digest": canon.DigestBytes(req.Payload)})
	if req.RequestDigest != want || req.Summary.PayloadDigest != canon.DigestBytes(req.Payload) {
		t.Fatalf("digest %s, want %s", req.RequestDigest, want)
	}
	other, _ := Ask(Asked{RunID: "run_2", Local: "think", Address: "run_0>think", StepID: "think"}, p, step, nil, nil)
	again, _ := Ask(at, p, step, map[string]any{"n": 1}, nil)
	if other.RequestDigest == req.RequestDigest || again.RequestDigest == req.RequestDigest {
		t.Fatal("another run or another input binds the same request")
	}
	withSkills, _ := Ask(at, p, step, nil, map[string]any{"context_skills": []any{"s"}})
	if err := json.Unmarshal(withSkills.Payload, &payload); err != nil || payload["context_skills"] == nil || withSkills.RequestDigest == req.RequestDigest {
		t.Fatalf("the engine's fields are not asked and bound: %v", payload)
	}
}
