package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
)

// The run state machine against stub plugins only (conformance_stub_test.go):
// admission, each step kind, pauses, resume rules, approvals, fan-out,
// retry, cancellation and sealing, through the engine's public entry points
// (Kernel.Skill, engine.Resume).

func writeSkill(t *testing.T, k *Kernel, name, runYAML string, extra map[string]string) string {
	t.Helper()
	dir := filepath.Join(k.Options.Workspace, name)
	files := map[string]string{
		"SKILL.md": "---\nname: " + name + "\ndescription: A conformance skill.\n---\nManual.\n",
		"run.yaml": "minimum_runx: 0.1.0\n" + runYAML,
	}
	for n, b := range extra {
		files[n] = b
	}
	for n, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runSkill(t *testing.T, k *Kernel, dir, method, inputs, authority string) *contract.SkillRun {
	t.Helper()
	req := SkillRequest{Ref: dir, Method: method, Inputs: pkg.InputSource{Document: []byte(inputs), HasDocument: true}}
	if authority != "" {
		req.Authority = []byte(authority)
	}
	env, err := k.Skill(context.Background(), req)
	if err != nil {
		t.Fatalf("Skill: %v", err)
	}
	return env
}

func resultOf(t *testing.T, env *contract.SkillRun) map[string]any {
	t.Helper()
	var v any
	if len(env.Result) > 0 {
		if err := json.Unmarshal(env.Result, &v); err != nil {
			t.Fatalf("result is not JSON: %s", env.Result)
		}
	}
	if list, ok := v.([]any); ok {
		return map[string]any{"items": list}
	}
	out, _ := v.(map[string]any)
	return out
}

func errCode(env *contract.SkillRun) string {
	if env.Error == nil {
		return ""
	}
	return string(env.Error.Code)
}

func TestConformanceStepKindsAndAdmission(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, inputs, authority string
		extra                         map[string]string
		outcome, code                 string
		check                         func(t *testing.T, out map[string]any, s *stub)
	}{
		{name: "tool", yaml: `methods:
  m:
    steps:
      - { id: a, tool: stub.echo, inputs: { v: 1 } }
`, outcome: "completed", check: func(t *testing.T, out map[string]any, _ *stub) {
			if out["v"] != float64(1) {
				t.Fatalf("got %v", out)
			}
		}},
		{name: "module by role", yaml: `methods:
  m:
    steps:
      - { id: a, tool: { module: m.mjs }, inputs: { x: hi } }
`, extra: map[string]string{"m.mjs": "export default (i) => i\n"}, outcome: "completed", check: func(t *testing.T, out map[string]any, _ *stub) {
			if saw, _ := out["module_saw"].(map[string]any); saw["x"] != "hi" {
				t.Fatalf("the module role's capability did not run it: %v", out)
			}
		}},
		{name: "command by role", yaml: `methods:
  m:
    steps:
      - { id: a, tool: { command: echo, args: [one, two] } }
`, outcome: "completed", check: func(t *testing.T, out map[string]any, _ *stub) {
			if argv, _ := out["argv"].([]any); len(argv) != 3 || argv[0] != "echo" {
				t.Fatalf("the command role's capability did not get the exact argv: %v", out)
			}
		}},
		{name: "connector operation", yaml: `methods:
  m:
    steps:
      - { id: a, operation: conn/ping, inputs: { q: 1 } }
`, outcome: "completed", check: func(t *testing.T, out map[string]any, _ *stub) {
			if out["op"] != "conn/ping" {
				t.Fatalf("got %v", out)
			}
		}},
		{name: "chained steps", yaml: `methods:
  m:
    steps:
      - { id: a, tool: stub.echo, inputs: { v: first }, outputs: { v: { type: string } } }
      - { id: b, tool: stub.read, inputs: { w: $steps.a.v } }
`, outcome: "completed", check: func(t *testing.T, out map[string]any, _ *stub) {
			if out["w"] != "first" {
				t.Fatalf("got %v", out)
			}
		}},
		{name: "guard skips", yaml: `methods:
  m:
    inputs: { go: { type: boolean, default: false } }
    steps:
      - { id: a, tool: stub.echo, inputs: { v: 1 }, outputs: { v: { type: integer } } }
      - { id: b, tool: stub.fail, when: "input.go" }
    result_from: [a]
`, outcome: "completed"},
		{name: "fan-out", yaml: `methods:
  m:
    inputs: { xs: { type: array } }
    steps:
      - { id: a, tool: stub.echo, for_each: $input.xs, inputs: { n: $item } }
`, inputs: `{"xs":[1,2,3]}`, outcome: "completed", check: func(t *testing.T, out map[string]any, s *stub) {
			if items, _ := out["items"].([]any); s.calls["stub.echo"] != 3 || len(items) != 3 {
				t.Fatalf("want one call per item, got %d (%v)", s.calls["stub.echo"], out)
			}
		}},
		{name: "retry of an effect-free step", yaml: `methods:
  m:
    steps:
      - { id: a, tool: stub.flaky, retry: { max_attempts: 3 } }
`, outcome: "completed", check: func(t *testing.T, out map[string]any, s *stub) {
			if s.calls["stub.flaky"] != 2 || out["attempt"] != float64(2) {
				t.Fatalf("want success on the second attempt, got %d calls, %v", s.calls["stub.flaky"], out)
			}
		}},
		{name: "failed capability seals failed", yaml: `methods:
  m:
    steps:
      - { id: a, tool: stub.fail }
`, outcome: "failed", code: "stub_failed"},
		{name: "unknown connector refused at admission", yaml: `methods:
  m:
    steps:
      - { id: a, operation: nowhere/op }
`, outcome: "blocked", code: "connector_not_installed"},
		{name: "role capability is no operation", yaml: `methods:
  m:
    steps:
      - { id: a, operation: conn/migrate }
`, outcome: "blocked", code: "connector_not_installed"},
		{name: "effects none refuses a certain write", yaml: `methods:
  m:
    steps:
      - { id: a, tool: stub.write, inputs: { files: [{ path: a.txt, text: x }] } }
`, authority: `{"effects":"none"}`, outcome: "refused", code: "effects_none_refused", check: func(t *testing.T, _ map[string]any, s *stub) {
			if s.calls["stub.write"] != 0 {
				t.Fatal("a refused write was sent")
			}
		}},
		{name: "reach refuses a path into .git", yaml: `methods:
  m:
    steps:
      - { id: a, tool: stub.write, inputs: { files: [{ path: .git/config, text: x }] } }
`, outcome: "refused", code: "reach_protected_dir"},
		{name: "write holds the workspace alone", yaml: `methods:
  m:
    steps:
      - { id: a, tool: stub.write, inputs: { files: [{ path: a.txt, text: x }] } }
`, outcome: "completed", check: func(t *testing.T, out map[string]any, _ *stub) {
			if out["exclusive"] != true {
				t.Fatalf("a write capability ran without the exclusive hold: %v", out)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, s := stubKernel(t)
			dir := writeSkill(t, k, "s", tc.yaml, tc.extra)
			inputs := tc.inputs
			if inputs == "" {
				inputs = "{}"
			}
			env := runSkill(t, k, dir, "m", inputs, tc.authority)
			if string(env.Outcome) != tc.outcome || errCode(env) != tc.code {
				raw, _ := json.Marshal(env)
				t.Fatalf("want %s %q, got %s %q: %s", tc.outcome, tc.code, env.Outcome, errCode(env), raw)
			}
			if env.Status != contract.StatusSealed || env.ReceiptID == "" {
				t.Fatalf("a finished run seals with a receipt: %+v", env)
			}
			if rep, err := k.Verify(context.Background(), env.ReceiptID); err != nil || rep.Status != receipt.StatusVerified {
				t.Fatalf("the sealed tree must verify: %+v %v", rep, err)
			}
			if tc.check != nil {
				tc.check(t, resultOf(t, env), s)
			}
		})
	}
}

const gatedWrite = `methods:
  m:
    steps:
      - { id: w, tool: stub.write, inputs: { files: [{ path: notes/a.md, text: hello }] } }
`

// answer fills the paused run's answers template for its one approval.
func answer(t *testing.T, env *contract.SkillRun, approved bool, digest string) []byte {
	t.Helper()
	doc := env.AnswersTemplate
	if doc == nil || len(doc.Approvals) != 1 {
		t.Fatalf("a gated run carries one approval to answer: %+v", env)
	}
	for _, e := range doc.Approvals {
		e.Approved = &approved
		reason := "conformance"
		e.Reason = &reason
		if digest != "" {
			e.RequestDigest = digest
		}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestConformancePauseApproveResume(t *testing.T) {
	for _, tc := range []struct {
		name     string
		approved bool
		digest   string
		want     string
		writes   int
	}{
		{name: "approved", approved: true, want: "completed", writes: 1},
		{name: "declined", approved: false, want: "declined", writes: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, s := stubKernel(t)
			dir := writeSkill(t, k, "s", gatedWrite, nil)
			env := runSkill(t, k, dir, "m", "{}", `{"effects":"ask"}`)
			if env.Status != "needs_approval" || len(env.Requests) != 1 {
				t.Fatalf("a write under effects ask pauses at the floor gate: %+v", env)
			}
			var payload map[string]any
			_ = json.Unmarshal(env.Requests[0].Payload, &payload)
			edit, _ := json.Marshal(payload["edit"])
			if !strings.Contains(string(edit), "runx.change_set.v1") || !strings.Contains(string(edit), "+hello") || !strings.Contains(string(edit), "notes/a.md") {
				t.Fatalf("the gate carries the Preview change set: %s", edit)
			}
			if s.calls["stub.write"] != 0 {
				t.Fatal("the gated write was sent before its decision")
			}
			done, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, tc.approved, "")})
			if err != nil {
				t.Fatal(err)
			}
			if string(done.Outcome) != tc.want || s.calls["stub.write"] != tc.writes {
				t.Fatalf("want %s with %d writes, got %s %q with %d", tc.want, tc.writes, done.Outcome, errCode(done), s.calls["stub.write"])
			}
			// A sealed run runs nothing more: resuming it answers its seal.
			again, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: []byte(`{}`)})
			if err == nil && (again.Status != contract.StatusSealed || string(again.Outcome) != tc.want) {
				t.Fatalf("resuming a sealed run changed it: %+v", again)
			}
			if s.calls["stub.write"] != tc.writes {
				t.Fatal("resuming a sealed run sent a call")
			}
		})
	}
}

func TestConformanceResumeRules(t *testing.T) {
	k, s := stubKernel(t)
	dir := writeSkill(t, k, "s", gatedWrite, nil)
	env := runSkill(t, k, dir, "m", "{}", `{"effects":"ask"}`)
	// An answer bound to another request's digest is not this decision: the
	// run stays paused and nothing is sent.
	stale, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "sha256:"+strings.Repeat("0", 64))})
	if err == nil && stale.Status == contract.StatusSealed && stale.Outcome == "completed" {
		t.Fatalf("a stale digest admitted the write: %+v", stale)
	}
	if s.calls["stub.write"] != 0 {
		t.Fatal("a stale answer sent the write")
	}
	// An unknown run and a malformed document are refused with their codes.
	if _, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: "run_nosuch", Document: []byte(`{}`)}); err == nil {
		t.Fatal("resuming an unknown run must be refused")
	}
	if _, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: []byte(`{"bogus":1}`)}); err == nil {
		t.Fatal("a resume document with an unknown field must be refused")
	}
	// Close seals the paused run with the stated outcome, sending nothing.
	closed, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: []byte(`{"close":{"outcome":"declined"}}`)})
	if err != nil || closed.Outcome != "declined" || s.calls["stub.write"] != 0 {
		t.Fatalf("close: %+v %v", closed, err)
	}
}

// A run that called a recovering capability has it asked to Recover by the
// run's next driver, before that driver sends anything.
func TestConformanceResumeRecoversFirst(t *testing.T) {
	k, s := stubKernel(t)
	dir := writeSkill(t, k, "s", `methods:
  m:
    steps:
      - { id: w1, tool: stub.write, inputs: { files: [{ path: notes/a.md, text: one }] } }
      - { id: w2, tool: stub.write, inputs: { files: [{ path: other/b.md, text: two }] } }
`, nil)
	env := runSkill(t, k, dir, "m", "{}", `{"effects":"ask","standing_approvals":[{"edits":{"paths":["notes"]}}]}`)
	if env.Status != "needs_approval" || s.calls["stub.write"] != 1 || env.Requests[0].Address != "w2" {
		t.Fatalf("want w1 admitted by the standing approval and w2 at its gate: %+v (%d writes)", env, s.calls["stub.write"])
	}
	if s.calls["recover:stub.write"] != 0 {
		t.Fatal("nothing was recovered yet")
	}
	done, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "")})
	if err != nil || done.Outcome != "completed" {
		t.Fatalf("%+v %v", done, err)
	}
	if s.calls["recover:stub.write"] != 1 || s.calls["stub.write"] != 2 {
		t.Fatalf("the resuming driver recovers once, then writes: %v", s.calls)
	}
}

func TestConformanceCancellation(t *testing.T) {
	k, s := stubKernel(t)
	dir := writeSkill(t, k, "s", `methods:
  m:
    steps:
      - { id: a, tool: stub.echo, inputs: { v: 1 } }
      - { id: b, tool: stub.echo, inputs: { v: 2 } }
`, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // asked to stop before the first step: no step is admitted
	env, err := k.Skill(ctx, SkillRequest{Ref: dir, Method: "m", Inputs: pkg.InputSource{Document: []byte(`{}`), HasDocument: true}})
	if err != nil {
		t.Fatal(err)
	}
	if env.Outcome == "completed" || s.calls["stub.echo"] != 0 {
		t.Fatalf("a stopped run admits no step: %+v, %d calls", env, s.calls["stub.echo"])
	}
}

// An operation its plugin declares approval: required asks for one decision
// before dispatch under every authority, exactly as a manifest operation
// does: the requirement is read from the Definition, whoever declared it.
func TestConformanceRequiredApprovalOfAPluginOperation(t *testing.T) {
	const requiredSend = `methods:
  m:
    steps:
      - { id: a, operation: conn/send, inputs: { q: 1 } }
`
	for _, tc := range []struct {
		name     string
		approved bool
		want     string
		sends    int
	}{
		{name: "approved", approved: true, want: "completed", sends: 1},
		{name: "declined", approved: false, want: "declined", sends: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, s := stubKernel(t)
			dir := writeSkill(t, k, "s", requiredSend, nil)
			env := runSkill(t, k, dir, "m", "{}", `{"effects":"allow"}`)
			if env.Status != "needs_approval" || len(env.Requests) != 1 {
				t.Fatalf("a required-approval operation pauses even under effects allow: %+v", env)
			}
			var payload map[string]any
			if err := json.Unmarshal(env.Requests[0].Payload, &payload); err != nil {
				t.Fatal(err)
			}
			if payload["gate"] != GateOperation || payload["operation"] != "conn/send" || payload["input_digest"] == nil {
				t.Fatalf("the request names the operation, its gate and its input digest: %v", payload)
			}
			if s.calls["conn/send"] != 0 {
				t.Fatal("the operation was sent before its decision")
			}
			done, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, tc.approved, "")})
			if err != nil {
				t.Fatal(err)
			}
			if string(done.Outcome) != tc.want || s.calls["conn/send"] != tc.sends {
				t.Fatalf("want %s with %d sends, got %s %q with %d", tc.want, tc.sends, done.Outcome, errCode(done), s.calls["conn/send"])
			}
		})
	}
}

// A call declaring metered use with no USD quote, under no money limit,
// asks once for approval of the exact call; under a limit it is refused
// before any gate (cost_quote_unknown).
func TestConformanceUnpricedMeteringAsksOnce(t *testing.T) {
	const metered = `methods:
  m:
    steps:
      - { id: a, operation: conn/metered, inputs: { q: 1 } }
`
	k, s := stubKernel(t)
	dir := writeSkill(t, k, "s", metered, nil)
	env := runSkill(t, k, dir, "m", "{}", `{"effects":"allow"}`)
	if env.Status != "needs_approval" || len(env.Requests) != 1 || s.calls["conn/metered"] != 0 {
		t.Fatalf("unpriced metering with no money limit asks first and sends nothing: %+v", env)
	}
	if !strings.Contains(string(env.Requests[0].Payload), "metered use with no USD quote") {
		t.Fatalf("the request says why it asks: %s", env.Requests[0].Payload)
	}
	done, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "")})
	if err != nil {
		t.Fatal(err)
	}
	if done.Outcome != "completed" || s.calls["conn/metered"] != 1 {
		t.Fatalf("approved once, sent once: %s %q with %d", done.Outcome, errCode(done), s.calls["conn/metered"])
	}

	limited := runSkill(t, k, dir, "m", "{}", `{"effects":"allow","max_spend_micro_usd":1000}`)
	if limited.Outcome != "refused" || errCode(limited) != "cost_quote_unknown" || s.calls["conn/metered"] != 1 {
		t.Fatalf("under a money limit an unknown quote is refused before any gate: %s %q", limited.Outcome, errCode(limited))
	}
}
