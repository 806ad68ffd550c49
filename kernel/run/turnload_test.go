package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/run/turn"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// loadParent is a skill whose turn may load packages under rules.
func loadParent(t *testing.T, k *Kernel, rules string) string {
	t.Helper()
	return writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - id: draft\n        agent: { task: Draft., calls: { load: ["+rules+"] } }\n", nil)
}

// installTier installs a published skill whose record states tier.
func (key publisherKey) installTier(t *testing.T, k *Kernel, publisher, name, version string, tier registry.TrustTier) {
	t.Helper()
	rec, files := key.signedSkill(t, publisher, name, version, echoStep("1"))
	rec.TrustTier = tier
	rec.Signature = nil
	if err := registry.Sign(rec, key.priv); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Install(k.Options.ProjectDir, rec, files, mustTrust(t, k)); err != nil {
		t.Fatal(err)
	}
}

// loadEvents are the run's load events, in order.
func loadEvents(t *testing.T, k *Kernel, runID string) []map[string]any {
	t.Helper()
	events, err := k.journal.Events(context.Background(), runID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range events {
		if ev.Stream == "calls" && ev.Type == turn.EventLoad {
			var m map[string]any
			if err := json.Unmarshal(ev.Data, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
	}
	return out
}

func waitingTurn(t *testing.T, k *Kernel, dir string) *contract.SkillRun {
	t.Helper()
	env := runSkill(t, k, dir, "m", "{}", "")
	if env.Status != "needs_agent" {
		t.Fatalf("the run waits on its turn: %+v", env)
	}
	return env
}

func loadCall(k *Kernel, runID, skill, callID string) (*TurnCallResult, error) {
	return k.TurnCall(context.Background(), TurnCallRequest{RunID: runID, Turn: "draft", Tool: turn.Load, CallID: callID, Input: []byte(`{"skill":"` + skill + `"}`)})
}

// A load the person already trusts completes at once: the package its
// rules name, bound as the run binds it, listed by its methods with its
// SKILL.md as untrusted context, recorded with its receipt and a load
// event naming {skill, package_digest}.
func TestTurnLoadCompletes(t *testing.T) {
	k, _ := stubKernel(t)
	key := trustKey(t, k, "acme")
	key.installTier(t, k, "acme", "tone", "1.0.0", registry.TierVerified)
	own := filepath.Join(k.Options.Workspace, "skills", "kin", "voice")
	os.MkdirAll(own, 0o755)
	os.WriteFile(filepath.Join(own, "SKILL.md"), []byte("---\nname: voice\ndescription: Our voice.\n---\nWrite plainly.\n"), 0o644)
	os.WriteFile(filepath.Join(own, "run.yaml"), []byte("minimum_runx: 0.1.0\n"+echoStep("9")), 0o644)
	env := waitingTurn(t, k, loadParent(t, k, "acme/*, kin/voice"))
	for i, c := range []struct{ ref, skill string }{{"acme/tone@1.0.0", "acme/tone@1.0.0"}, {"kin/voice", "kin/voice"}} {
		res, err := loadCall(k, env.RunID, c.ref, "")
		if err != nil || res.Status != contract.CallSuccess || res.ReceiptID == "" {
			t.Fatalf("load %s: %+v %v", c.ref, res, err)
		}
		var out turn.Loaded
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		p, _, err := k.engine.Resolver.Resolve(k.Options.Workspace, c.ref)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(filepath.Join(p.Dir, "SKILL.md"))
		if out.Skill != c.skill || out.PackageDigest != p.Digest || len(out.Methods) != 1 || out.Methods[0].Name != "m" ||
			out.Context.Trust != "untrusted" || out.Context.Digest != canon.DigestBytes(raw) || out.Context.Content != string(raw) {
			t.Fatalf("load %s output %+v", c.ref, out)
		}
		ev := loadEvents(t, k, env.RunID)
		if len(ev) != i+1 || ev[i]["skill"] != c.skill || ev[i]["package_digest"] != p.Digest || ev[i]["status"] != "completed" {
			t.Fatalf("load events %v", ev)
		}
	}
}

// A load outside its step's calls.load is refused and takes no index, as
// is a load whose input is not a package, and a load from a step that
// lists no rules.
func TestTurnLoadOutsideItsRulesIsRefused(t *testing.T) {
	k, _ := stubKernel(t)
	env := waitingTurn(t, k, loadParent(t, k, "acme/tone"))
	for _, c := range []struct {
		input string
		code  errcode.Code
	}{
		{`{"skill":"acme/other"}`, errcode.LoadNotAllowed},
		{`{"skill":"evil/tone@1.0.0"}`, errcode.LoadNotAllowed},
		{`{"skill":"runx/tone"}`, errcode.LoadNotAllowed},
		{`{"skill":"./tone"}`, errcode.LoadInputInvalid},
		{`{"skill":"acme/tone","extra":1}`, errcode.LoadInputInvalid},
	} {
		_, err := k.TurnCall(context.Background(), TurnCallRequest{RunID: env.RunID, Turn: "draft", Tool: turn.Load, Input: []byte(c.input)})
		wantCode(t, err, c.code)
	}
	if ev := loadEvents(t, k, env.RunID); len(ev) != 0 {
		t.Fatalf("a refused load was recorded: %v", ev)
	}
	plain := writeSkill(t, k, "plain", "methods:\n  m:\n    steps:\n      - id: draft\n        agent: { task: Draft. }\n", nil)
	env = waitingTurn(t, k, plain)
	_, err := loadCall(k, env.RunID, "acme/tone", "")
	wantCode(t, err, errcode.CallNotAllowed)
}

// A load its rules admit is still held to the run's authority: a package
// the authority's packages do not cover is refused, recorded, never read.
func TestTurnLoadIsHeldToTheRunsAuthority(t *testing.T) {
	k, _ := stubKernel(t)
	key := trustKey(t, k, "acme")
	key.installTier(t, k, "acme", "tone", "1.0.0", registry.TierVerified)
	env := runSkill(t, k, loadParent(t, k, "acme/*"), "m", "{}", `{"packages": ["project:*"]}`)
	if env.Status != "needs_agent" {
		t.Fatalf("the run waits on its turn: %+v", env)
	}
	res, err := loadCall(k, env.RunID, "acme/tone@1.0.0", "")
	if err != nil || res.Status != contract.CallRefused || res.Error == nil || res.Error.Code != errcode.PackageNotCovered || len(res.Output) != 0 {
		t.Fatalf("a load outside the authority: %+v %v", res, err)
	}
	// a package the project does not hold is never fetched during the run
	res, err = loadCall(k, env.RunID, "acme/absent@1.0.0", "")
	if err != nil || res.Status != contract.CallRefused || res.Error.Code != errcode.RegistrySkillNotInstalled {
		t.Fatalf("a load of a package the project lacks: %+v %v", res, err)
	}
}

// A load of a package the person does not yet trust (a community tier)
// waits on their trust; made again with its call_id once they decided, it
// completes when they trusted it and is declined when they did not. Its
// events say which.
func TestTurnLoadOfAnUntrustedPackageWaits(t *testing.T) {
	for _, approved := range []bool{true, false} {
		k, _ := stubKernel(t)
		key := trustKey(t, k, "acme")
		key.installTier(t, k, "acme", "tone", "1.0.0", registry.TierCommunity)
		env := waitingTurn(t, k, loadParent(t, k, "acme/*"))
		res, err := loadCall(k, env.RunID, "acme/tone@1.0.0", "l1")
		if err != nil || res.Status != contract.CallPending || len(res.Waiting) != 1 || res.Waiting[0].Kind != contract.RequestApproval {
			t.Fatalf("an untrusted load waits: %+v %v", res, err)
		}
		// made again before the person decided, it still waits
		if again, err := loadCall(k, env.RunID, "acme/tone@1.0.0", "l1"); err != nil || again.Status != contract.CallPending || len(again.Waiting) != 1 {
			t.Fatalf("made again undecided: %+v %v", again, err)
		}
		ev := loadEvents(t, k, env.RunID)
		if len(ev) != 1 || ev[0]["status"] != "waiting" || ev[0]["skill"] != "acme/tone@1.0.0" || ev[0]["package_digest"] == "" {
			t.Fatalf("load events %v", ev)
		}
		w := res.Waiting[0]
		doc, _ := json.Marshal(map[string]any{"approvals": map[string]any{w.Address: map[string]any{"request_digest": w.RequestDigest, "approved": approved, "reason": "read it"}}})
		if _, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: doc}); err != nil {
			t.Fatal(err)
		}
		res, err = loadCall(k, env.RunID, "acme/tone@1.0.0", "l1")
		want, status := contract.CallSuccess, "completed"
		if !approved {
			want, status = contract.CallFailed, "declined"
		}
		if err != nil || res.Status != want || (!approved && (res.Error == nil || res.Error.Code != errcode.LoadDeclined)) {
			t.Fatalf("approved %v: %+v %v", approved, res, err)
		}
		if ev := loadEvents(t, k, env.RunID); len(ev) != 2 || ev[1]["status"] != status {
			t.Fatalf("approved %v: load events %v", approved, ev)
		}
		// the settled load is its call_id's answer from now on
		if pinned, err := loadCall(k, env.RunID, "acme/tone@1.0.0", "l1"); err != nil || !pinned.Pinned || pinned.Status != want {
			t.Fatalf("approved %v: pinned %+v %v", approved, pinned, err)
		}
	}
	_ = time.Second
}
