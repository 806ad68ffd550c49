package run

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/errcode"
)

const reportSchema = `{"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}`

// stepReceiptOf is the receipt of the root run's step at address.
func stepReceiptOf(t *testing.T, k *Kernel, rootReceipt, address string) *receipt.Receipt {
	t.Helper()
	root, _, err := k.engine.Store.Get(rootReceipt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range root.Body.Children {
		r, _, err := k.engine.Store.Get(c.ReceiptID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Body.StepID == address {
			return r
		}
	}
	t.Fatalf("no receipt for step %s", address)
	return nil
}

// An output naming a packet the package declares is checked against it
// and kept as a project artifact of that packet; the step's receipt names
// it, labelled output/<name>, with its packet, and the store holds it.
// result_as makes the step's whole result that output, packet and all.
func TestPacketOutputKeptAsArtifact(t *testing.T) {
	for name, step := range map[string]string{
		"outputs":   "      - id: make\n        tool: stub.echo\n        inputs: { report: { title: T } }\n        outputs: { report: { type: object, packet: acme.report.v1 } }\n",
		"result_as": "      - id: make\n        tool: stub.echo\n        inputs: { title: T }\n        result_as: report\n        outputs: { report: { type: object, packet: acme.report.v1 } }\n",
	} {
		t.Run(name, func(t *testing.T) {
			k, _ := stubKernel(t)
			dir := writeSkill(t, k, "packets", "methods:\n  m:\n    steps:\n"+step, map[string]string{"schemas/acme.report.v1.json": reportSchema})
			env := runSkill(t, k, dir, "m", "{}", "")
			if env.Outcome != "completed" {
				t.Fatalf("run: %s %s", env.Status, env.Error)
			}
			r := stepReceiptOf(t, k, env.ReceiptID, "make")
			if len(r.Body.Artifacts) != 1 {
				t.Fatalf("artifacts %+v", r.Body.Artifacts)
			}
			a := r.Body.Artifacts[0]
			if a.Label != "output/report" || a.Packet != "acme.report.v1" || a.MediaType != "application/json" || !artifactstore.ValidRef(a.Ref) {
				t.Fatalf("artifact %+v", a)
			}
			st, err := artifactstore.Open(k.engine.ProjectDir)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := st.Lookup(env.RunID, a.Ref)
			if err != nil || rec.Packet != "acme.report.v1" || rec.Digest != a.Digest {
				t.Fatalf("the store's record %+v %v", rec, err)
			}
			content, err := st.ReadAll(rec, 1<<20)
			if err != nil || string(content) != `{"title":"T"}` {
				t.Fatalf("content %s %v", content, err)
			}
		})
	}
}

// A value that does not meet its packet fails its step (packet_invalid);
// an output naming a packet no description registers is refused before
// any step runs (packet_unknown).
func TestPacketOutputRefusals(t *testing.T) {
	k, s := stubKernel(t)
	bad := writeSkill(t, k, "bad", "methods:\n  m:\n    steps:\n      - id: make\n        tool: stub.echo\n        inputs: { report: { body: x } }\n        outputs: { report: { type: object, packet: acme.report.v1 } }\n",
		map[string]string{"schemas/acme.report.v1.json": reportSchema})
	env := runSkill(t, k, bad, "m", "{}", "")
	if env.Outcome != "failed" || errCode(env) != string(errcode.PacketInvalid) {
		t.Fatalf("a packet that does not meet its schema: %s %s", env.Status, env.Error)
	}
	method := writeSkill(t, k, "method", "methods:\n  m:\n    outputs: { report: { type: object, packet: acme.report.v1 } }\n    steps:\n      - id: make\n        tool: stub.echo\n        inputs: { report: { body: x } }\n        outputs: { report: { type: object } }\n",
		map[string]string{"schemas/acme.report.v1.json": reportSchema})
	if env := runSkill(t, k, method, "m", "{}", ""); errCode(env) != string(errcode.PacketInvalid) {
		t.Fatalf("a method output that does not meet its packet: %s %s", env.Outcome, env.Error)
	}
	unknown := writeSkill(t, k, "unknown", "methods:\n  m:\n    steps:\n      - id: make\n        tool: stub.echo\n        inputs: { report: { title: T } }\n        outputs: { report: { type: object, packet: acme.nothing.v1 } }\n", nil)
	before := s.calls["stub.echo"]
	env = runSkill(t, k, unknown, "m", "{}", "")
	if errCode(env) != string(errcode.PacketUnknown) || s.calls["stub.echo"] != before {
		t.Fatalf("an unknown packet: %s %s (%d calls)", env.Status, env.Error, s.calls["stub.echo"]-before)
	}
	broken := writeSkill(t, k, "broken", "methods:\n  m:\n    steps:\n      - id: make\n        tool: stub.echo\n", map[string]string{"schemas/acme.report.v1.json": `{"type": "nothing"}`})
	if _, err := k.Skill(context.Background(), SkillRequest{Ref: broken, Method: "m"}); contract.CodeOf(err) != errcode.PacketSchemaInvalid {
		t.Fatalf("a package schema that does not compile: %v", err)
	}
}

// callEvents are the data of the run's settled call events, by address.
func callEvents(t *testing.T, k *Kernel, runID string) map[string]map[string]any {
	t.Helper()
	read, err := k.ReadRun(context.Background(), runID, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, ev := range read.Events["calls"] {
		var data map[string]any
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			t.Fatal(err)
		}
		if addr, _ := data["address"].(string); data["status"] != nil {
			out[addr] = data
		}
	}
	return out
}

// A turn's completed call names each packet output's artifact under
// artifacts, by output name; its event in the run carries its outcome:
// those artifacts and one for the rest of its output, or a refused or
// failed call's reason.
func TestTurnCallOutcome(t *testing.T) {
	k, _ := stubKernel(t)
	parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - id: draft\n        agent: { task: Draft., calls: { skills: [../child], tools: [stub.echo, stub.fail] } }\n", nil)
	writeSkill(t, k, "child", `methods:
  m:
    outputs:
      report: { type: object, packet: acme.report.v1 }
      note: { type: string }
    steps:
      - { id: w, tool: stub.echo, inputs: { report: { title: T }, note: n }, outputs: { report: { type: object }, note: { type: string } } }
`, map[string]string{"schemas/acme.report.v1.json": reportSchema})
	env := runSkill(t, k, parent, "m", "{}", "")
	if env.Status != "needs_agent" {
		t.Fatalf("the run waits on its turn: %+v", env)
	}
	ctx := context.Background()
	res, err := k.TurnCall(ctx, TurnCallRequest{RunID: env.RunID, Turn: "draft", Tool: "skill:../child", Input: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	report, ok := res.Artifacts["report"]
	if res.Status != "success" || !ok || report.Packet != "acme.report.v1" || !artifactstore.ValidRef(report.Ref) || len(res.Artifacts) != 1 {
		t.Fatalf("the call's artifacts: %+v", res.CallRecord)
	}
	if _, err := k.TurnCall(ctx, TurnCallRequest{RunID: env.RunID, Turn: "draft", Tool: "stub.echo", Input: []byte(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.TurnCall(ctx, TurnCallRequest{RunID: env.RunID, Turn: "draft", Tool: "stub.fail", Input: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	events := callEvents(t, k, env.RunID)
	if len(events) != 3 {
		t.Fatalf("events %v", events)
	}
	st, err := artifactstore.Open(k.engine.ProjectDir)
	if err != nil {
		t.Fatal(err)
	}
	restOf := func(addr string) string {
		o, _ := events[addr]["outcome"].(map[string]any)
		rest, _ := o["rest"].(map[string]any)
		ref, _ := rest["ref"].(string)
		rec, err := st.Lookup(env.RunID, ref)
		if err != nil || rest["digest"] != rec.Digest || rest["media_type"] != "application/json" {
			t.Fatalf("%s: rest %v (%v)", addr, rest, err)
		}
		content, err := st.ReadAll(rec, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		return string(content)
	}
	skill, _ := events["draft/0"]["outcome"].(map[string]any)
	arts, _ := skill["artifacts"].(map[string]any)
	if r, _ := arts["report"].(map[string]any); r["digest"] != report.Digest || r["packet"] != "acme.report.v1" {
		t.Fatalf("the skill call's outcome: %v", skill)
	}
	if got := restOf("draft/0"); got != `{"note":"n"}` {
		t.Fatalf("the skill call's rest: %s", got)
	}
	if got := restOf("draft/1"); got != `{"a":1}` {
		t.Fatalf("the tool call's rest: %s", got)
	}
	failed, _ := events["draft/2"]["outcome"].(map[string]any)
	if reason, _ := failed["reason"].(map[string]any); reason["code"] != "stub_failed" {
		t.Fatalf("the failed call's outcome: %v", events["draft/2"])
	}
}

// A packet-typed input takes the packet or a reference to one the project
// holds: the reference's digest and the input's packet are checked, the
// input gets its content, and the call's receipt names the artifact
// labelled with the input. A reference whose digest is not its content's
// or that leaves the store is refused, and so is a packet that does not
// meet its schema; an input typed runx.artifact.v1 gets the descriptor.
func TestPacketInputs(t *testing.T) {
	k, _ := stubKernel(t)
	parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - id: draft\n        agent: { task: Draft., calls: { skills: [../maker, ../reader] } }\n", nil)
	schemas := map[string]string{"schemas/acme.report.v1.json": reportSchema}
	writeSkill(t, k, "maker", `methods:
  m:
    outputs: { report: { type: object, packet: acme.report.v1 } }
    steps:
      - { id: w, tool: stub.echo, inputs: { report: { title: T } }, outputs: { report: { type: object } } }
`, schemas)
	writeSkill(t, k, "reader", `methods:
  m:
    inputs:
      report: { type: acme.report.v1 }
      desc: { type: runx.artifact.v1 }
    steps:
      - { id: r, tool: stub.echo, inputs: { report: $input.report, desc: $input.desc } }
`, schemas)
	env := runSkill(t, k, parent, "m", "{}", "")
	ctx := context.Background()
	call := func(tool string, input any) *TurnCallResult {
		t.Helper()
		raw, _ := json.Marshal(input)
		res, err := k.TurnCall(ctx, TurnCallRequest{RunID: env.RunID, Turn: "draft", Tool: tool, Input: raw})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	made := call("skill:../maker", map[string]any{})
	d := made.Artifacts["report"]
	ref := map[string]any{"schema": d.Schema, "ref": d.Ref, "digest": d.Digest, "bytes": d.Bytes}

	got := call("skill:../reader", map[string]any{"report": ref, "desc": ref})
	var out map[string]any
	_ = json.Unmarshal(got.Output, &out)
	report, _ := out["report"].(map[string]any)
	desc, _ := out["desc"].(map[string]any)
	if got.Status != "success" || report["title"] != "T" || desc["schema"] != "runx.artifact.v1" || desc["ref"] != d.Ref {
		t.Fatalf("the reader got %s (%s %v)", got.Output, got.Status, got.Error)
	}
	r, _, err := k.engine.Store.Get(got.ReceiptID)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, a := range r.Body.Artifacts {
		named = named || a.Label == "input/report" && a.Digest == d.Digest && a.Packet == "acme.report.v1" && a.Ref == d.Ref
	}
	if !named {
		t.Fatalf("the call's receipt names %+v", r.Body.Artifacts)
	}
	if inline := call("skill:../reader", map[string]any{"report": map[string]any{"title": "U"}}); inline.Status != "success" {
		t.Fatalf("the packet itself: %+v", inline.CallRecord)
	}

	for name, tc := range map[string]struct {
		input map[string]any
		code  errcode.Code
	}{
		"digest not its content's": {map[string]any{"report": map[string]any{"schema": d.Schema, "ref": d.Ref, "digest": "sha256:" + artifactstore.HexDigest([]byte("x")), "bytes": d.Bytes}}, errcode.PacketRefDigestMismatch},
		"leaving the store":        {map[string]any{"report": map[string]any{"schema": d.Schema, "path": "/etc/passwd", "digest": d.Digest, "bytes": d.Bytes}}, errcode.PacketRefOutsideStore},
		"another root":             {map[string]any{"report": map[string]any{"schema": d.Schema, "artifact_id": d.Digest, "root": "sha256:" + artifactstore.HexDigest([]byte("/other")), "digest": d.Digest, "bytes": d.Bytes}}, errcode.PacketRefOutsideStore},
		"not the packet":           {map[string]any{"report": map[string]any{"body": "x"}}, errcode.PacketInvalid},
		"not a descriptor":         {map[string]any{"desc": map[string]any{"x": 1}}, errcode.PacketInvalid},
	} {
		res := call("skill:../reader", tc.input)
		if res.Error == nil || res.Error.Code != tc.code || res.Status == "success" {
			t.Errorf("%s: %s %+v", name, res.Status, res.Error)
		}
	}
}

// A plugin extends the registry by its description: a packet its Describe
// answer names is one a package's output may name, with no schema of its
// own, and the value is held to the plugin's schema.
func TestPacketDescribedByAPlugin(t *testing.T) {
	k, _ := stubKernel(t)
	dir := writeSkill(t, k, "noted", "methods:\n  m:\n    inputs: { note: { type: string } }\n    steps:\n      - id: n\n        tool: stub.echo\n        inputs: { n: { note: $input.note } }\n        outputs: { n: { type: object, packet: stub.note.v1 } }\n", nil)
	env := runSkill(t, k, dir, "m", `{"note": "x"}`, "")
	if env.Outcome != "completed" {
		t.Fatalf("a plugin's packet: %s %s", env.Outcome, env.Error)
	}
	if a := stepReceiptOf(t, k, env.ReceiptID, "n").Body.Artifacts; len(a) != 1 || a[0].Packet != "stub.note.v1" {
		t.Fatalf("artifacts %+v", a)
	}
	if env := runSkill(t, k, dir, "m", `{}`, ""); errCode(env) != string(errcode.PacketInvalid) {
		t.Fatalf("a value the plugin's schema refuses: %s %s", env.Outcome, env.Error)
	}
}
