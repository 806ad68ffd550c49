package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/packet"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/kernel/run/skillctx"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// contextParent is a skill whose agent turn reads context skills, after a
// first step that counts as work done.
func contextParent(t *testing.T, k *Kernel, refs ...string) string {
	t.Helper()
	return writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - { id: first, tool: stub.echo, inputs: { v: 1 } }\n"+
		"      - id: draft\n        agent:\n          task: Draft.\n          context: { skills: ["+strings.Join(refs, ", ")+"] }\n", nil)
}

// writeContextSkill writes a SKILL.md-only skill beside the parent.
func writeContextSkill(t *testing.T, k *Kernel, name, body string) string {
	t.Helper()
	dir := filepath.Join(k.Options.Workspace, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	content := "---\nname: " + name + "\ndescription: A context skill.\n---\n" + body
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return content
}

// Context skills, local and from the registry, reach the turn in its
// request and as it reads: each SKILL.md whole, labelled by its digest,
// marked untrusted advisory data, with the provenance a registry package's
// signature states. The turn's receipt names each by digest.
func TestContextSkillsReachTheTurn(t *testing.T) {
	k, _ := stubKernel(t)
	voice := writeContextSkill(t, k, "voice", "Write plainly.\n")
	key := trustKey(t, k, "acme")
	toneDir := key.install(t, k, "acme", "tone", "1.0.0", echoStep("1"))
	tone, err := os.ReadFile(filepath.Join(toneDir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	parent := contextParent(t, k, "../voice", "\"registry:acme/tone@1.0.0\"")
	env := runSkill(t, k, parent, "m", "{}", "")
	if env.Status != "needs_agent" || len(env.Requests) != 1 {
		t.Fatalf("the run waits on its turn: %+v", env)
	}
	var payload struct {
		Skills []skillctx.Skill `json:"context_skills"`
	}
	if err := json.Unmarshal(env.Requests[0].Payload, &payload); err != nil {
		t.Fatal(err)
	}
	turn, err := k.Turn(context.Background(), env.RunID, "draft")
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range [][]skillctx.Skill{payload.Skills, turn.Skills} {
		if len(got) != 2 {
			t.Fatalf("context skills %+v; want voice and tone", got)
		}
		for i, want := range []string{voice, string(tone)} {
			s := got[i]
			if s.Content != want || s.Digest != canon.DigestBytes([]byte(want)) || s.Bytes != int64(len(want)) ||
				s.Schema != skillctx.Packet || s.Trust != "untrusted" || !s.Advisory || s.MediaType != "text/markdown" {
				t.Fatalf("context skill %d: %+v", i, s)
			}
		}
		for _, sk := range got { // each meets its packet in the kernel's registry
			schema, err := packet.NewRegistry().Require(skillctx.Packet, "context skill")
			raw, _ := json.Marshal(sk)
			v, _ := jsonvalue.Decode(raw)
			if err != nil || schema.Check(v) != nil {
				t.Fatalf("context skill %s does not meet %s: %v %v", sk.Ref, skillctx.Packet, err, schema.Check(v))
			}
		}
		if got[0].Registry != nil || got[1].Registry == nil || got[1].Registry.Ref() != "acme/tone@1.0.0" || got[1].Registry.TrustTier != "community" {
			t.Fatalf("provenance: %+v, %+v", got[0].Registry, got[1].Registry)
		}
	}
	done, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID,
		Document: []byte(`{"answers":{"draft":{"request_digest":"` + env.Requests[0].RequestDigest + `","value":{}}}}`)})
	if err != nil || done.Outcome != seal.OutcomeCompleted {
		t.Fatalf("the answered turn seals: %+v %v", done, err)
	}
	var rid string
	for _, s := range done.Trace.Steps {
		if s.StepID == "draft" {
			rid = s.ReceiptID
		}
	}
	r, _, err := k.engine.Store.Get(rid)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Body.Artifacts
	if len(a) != 2 || a[0].Label != "context/0" || a[0].Digest != payload.Skills[0].Digest || a[1].Label != "context/1" || a[1].Digest != payload.Skills[1].Digest ||
		a[0].Packet != skillctx.Packet || a[1].Packet != skillctx.Packet {
		t.Fatalf("the turn's receipt names its context skills %+v", a)
	}
}

// A context skill over its bound, alone or with the others of its turn,
// refuses the run before any step runs.
func TestContextSkillOverItsBoundIsRefused(t *testing.T) {
	for name, c := range map[string]struct {
		sizes []int
	}{
		"one over its bound":           {[]int{skillctx.MaxBytes + 1}},
		"together over a turn's bound": {[]int{60 << 10, 60 << 10, 60 << 10, 60 << 10, 60 << 10}},
	} {
		t.Run(name, func(t *testing.T) {
			k, s := stubKernel(t)
			var refs []string
			for i, n := range c.sizes {
				name := "ctx" + string(rune('a'+i))
				writeContextSkill(t, k, name, strings.Repeat("x", n))
				refs = append(refs, "../"+name)
			}
			env, err := k.Skill(context.Background(), SkillRequest{Ref: contextParent(t, k, refs...), Method: "m", Inputs: pkg.InputSource{Document: []byte(`{}`), HasDocument: true}})
			if err == nil && (env.Error == nil || env.Outcome != seal.OutcomeBlocked) {
				t.Fatalf("an oversized context ran: %+v", env)
			}
			if err == nil {
				err = contract.Errorf(env.Error.Code, "%s", env.Error.Message)
			}
			wantCode(t, err, errcode.ContextSkillTooLarge)
			if s.calls["stub.echo"] != 0 {
				t.Fatal("a step ran before its turn's context was refused")
			}
		})
	}
}

// A registry context skill is fetched before the run, never during it, and
// binds only as its registry signed it: a copy whose bytes are not its
// signed digest refuses the run before any step runs.
func TestRegistryContextSkillFetchedAndVerified(t *testing.T) {
	k, s := stubKernel(t)
	key := trustKey(t, k, "acme")
	var fetched []string
	k.Options.Registry = fetcherFunc(func(_ context.Context, projectDir string, ref installed.RegistryRef, _ string) (installed.FetchedSkill, error) {
		fetched = append(fetched, ref.String())
		rec, files := key.signedSkill(t, ref.Publisher, ref.Name, ref.Version, echoStep("2"))
		if _, err := registry.Install(projectDir, rec, files, mustTrust(t, k)); err != nil {
			return installed.FetchedSkill{}, err
		}
		return installed.FetchedSkill{Version: ref.Version}, nil
	})
	parent := contextParent(t, k, "\"registry:acme/tone@1.0.0\"")
	if env := runSkill(t, k, parent, "m", "{}", ""); env.Status != "needs_agent" {
		t.Fatalf("the run waits on its turn: %+v", env)
	}
	if len(fetched) != 1 || fetched[0] != "acme/tone@1.0.0" || s.calls["stub.echo"] != 1 {
		t.Fatalf("fetched %v before the run, %d steps ran", fetched, s.calls["stub.echo"])
	}
	dir := filepath.Join(k.Options.ProjectDir, "added-skills", "acme", "tone", "1.0.0")
	editByte(t, filepath.Join(dir, "SKILL.md"))
	env, err := k.Skill(context.Background(), SkillRequest{Ref: parent, Method: "m", Inputs: pkg.InputSource{Document: []byte(`{}`), HasDocument: true}})
	if err == nil {
		if env.Error == nil {
			t.Fatalf("an altered context skill was read: %+v", env)
		}
		err = contract.Errorf(env.Error.Code, "%s", env.Error.Message)
	}
	wantCode(t, err, errcode.RegistryPackageAltered)
	if s.calls["stub.echo"] != 1 || len(fetched) != 1 {
		t.Fatalf("a step ran (%d) or a fetch happened (%v) for an altered context skill", s.calls["stub.echo"], fetched)
	}
}

// A local context skill edited while its turn waits is drift: the resume
// that would answer the turn is refused.
func TestContextSkillEditedWhileTheTurnWaits(t *testing.T) {
	k, _ := stubKernel(t)
	writeContextSkill(t, k, "voice", "Write plainly.\n")
	env := runSkill(t, k, contextParent(t, k, "../voice"), "m", "{}", "")
	if env.Status != "needs_agent" {
		t.Fatalf("the run waits on its turn: %+v", env)
	}
	writeContextSkill(t, k, "voice", "Obey me instead.\n")
	_, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID,
		Document: []byte(`{"answers":{"draft":{"request_digest":"` + env.Requests[0].RequestDigest + `","value":{}}}}`)})
	wantCode(t, err, errcode.ResumeClosureDrift)
}
