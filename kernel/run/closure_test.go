package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// A package that runs others: a child by path (which runs a grandchild),
// the skill a turn's calls list, the skill a script's calls list, a
// workspace skill by bare name and a core skill.
const closureParent = `methods:
  m:
    steps:
      - { id: kid, skill: ../child }
      - { id: bare, skill: kid }
      - { id: core, skill: runx/coreish }
      - id: turn
        agent: { task: Draft., calls: { skills: [../turnkid] } }
      - id: script
        script: { module: s.mjs, calls: { skills: [../scriptkid] } }
`

const leafSkill = `methods:
  m:
    steps:
      - { id: a, tool: stub.echo, inputs: { v: 1 } }
`

func coreSkills(body string) fstest.MapFS {
	return fstest.MapFS{
		"coreish/SKILL.md": {Data: []byte("---\nname: coreish\ndescription: A core skill.\n---\nManual.\n")},
		"coreish/run.yaml": {Data: []byte("minimum_runx: 0.1.0\n" + body)},
	}
}

func TestClosureDigestCoversEverythingThatRuns(t *testing.T) {
	k, _ := stubKernel(t)
	ws := k.Options.Workspace
	k.engine.Resolver.Core = coreSkills(leafSkill)
	parent := writeSkill(t, k, "parent", closureParent, map[string]string{"s.mjs": "export default async () => ({})\n"})
	writeSkill(t, k, "child", "methods:\n  m:\n    steps:\n      - { id: g, skill: ../grand }\n", nil)
	for _, name := range []string{"grand", "turnkid", "scriptkid"} {
		writeSkill(t, k, name, leafSkill, nil)
	}
	writeSkill(t, k, "kid", leafSkill, nil)
	if err := os.MkdirAll(filepath.Join(ws, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(ws, "kid"), filepath.Join(ws, "skills", "kid")); err != nil {
		t.Fatal(err)
	}
	closure := func() string {
		t.Helper()
		p, err := pkg.Load(parent, k.LoadOptions())
		if err != nil {
			t.Fatal(err)
		}
		return k.engine.closureOf(p)
	}
	base := closure()
	if again := closure(); again != base {
		t.Fatalf("the closure digest is not deterministic: %s then %s", base, again)
	}
	edit := func(rel string) func() {
		return func() {
			path := filepath.Join(ws, rel)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(raw, "# edited\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.WriteFile(path, raw, 0o644) })
		}
	}
	for _, tc := range []struct {
		name   string
		change func()
	}{
		{"a child by path", edit("child/run.yaml")},
		{"a grandchild", edit("grand/run.yaml")},
		{"a child a turn calls", edit("turnkid/run.yaml")},
		{"a child a script calls", edit("scriptkid/run.yaml")},
		{"a workspace skill by name", edit("skills/kid/run.yaml")},
		{"a new file in a child", func() {
			writeSkill(t, k, "child", "methods:\n  m:\n    steps:\n      - { id: g, skill: ../grand }\n", map[string]string{"extra.mjs": "export default () => 1\n"})
		}},
		{"a bundled skill", func() {
			k.engine.Resolver.Core = coreSkills(leafSkill + "# another build\n")
		}},
		{"the release", func() {
			k.engine.RunxVersion = "0.1.1"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := closure()
			tc.change()
			if after := closure(); after == before {
				t.Fatalf("the closure digest did not change when %s changed", tc.name)
			}
		})
	}
}

// A child package edited while its parent waits is refused at resume, and
// nothing of it runs: a child by path, a grandchild, and a child a turn's
// or a script's calls list.
func TestResumeRefusesAChildEditedWhileThePausedRunWaits(t *testing.T) {
	for _, tc := range []struct{ name, step, edited string }{
		{"child", "      - { id: kid, skill: ../child }\n", "child/run.yaml"},
		{"grandchild", "      - { id: kid, skill: ../middle }\n", "child/run.yaml"},
		{"turn call", "      - id: kid\n        agent: { task: Draft., calls: { skills: [../child] } }\n", "child/run.yaml"},
		{"script call", "      - id: kid\n        script: { module: s.mjs, calls: { skills: [../child] } }\n", "child/run.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, s := stubKernel(t)
			parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - { id: gate, ask: { reason: Go on? } }\n"+tc.step,
				map[string]string{"s.mjs": "export default async () => ({})\n"})
			writeSkill(t, k, "middle", "methods:\n  m:\n    steps:\n      - { id: c, skill: ../child }\n", nil)
			writeSkill(t, k, "child", `methods:
  m:
    steps:
      - { id: w, tool: stub.write, inputs: { files: [{ path: notes/a.md, text: one }] } }
`, nil)
			env := runSkill(t, k, parent, "m", "{}", "")
			if env.Status != "needs_approval" {
				t.Fatalf("the parent pauses at its gate: %+v", env)
			}
			path := filepath.Join(k.Options.Workspace, tc.edited)
			raw, _ := os.ReadFile(path)
			if err := os.WriteFile(path, append(raw, "# edited while the parent waits\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "")})
			if contract.CodeOf(err) != errcode.ResumeClosureDrift {
				t.Fatalf("want %s, got %v", errcode.ResumeClosureDrift, err)
			}
			if s.calls["stub.write"] != 0 {
				t.Fatal("the edited child ran")
			}
			// Put back as it was, the run goes on: it was refused for the edit.
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.name == "child" || tc.name == "grandchild" {
				done, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "")})
				if err != nil || done.Outcome != seal.OutcomeCompleted || s.calls["stub.write"] != 1 {
					t.Fatalf("the restored child runs once: %+v %v (%d writes)", done, err, s.calls["stub.write"])
				}
			}
		})
	}
}

// The digests a host states bind a sealed run's resume and a close as they
// bind an open run's.
func TestResumeOfASealedRunHoldsTheStatedDigests(t *testing.T) {
	k, _ := stubKernel(t)
	dir := writeSkill(t, k, "s", leafSkill, nil)
	env := runSkill(t, k, dir, "m", "{}", "")
	if env.Outcome != seal.OutcomeCompleted {
		t.Fatalf("got %+v", env)
	}
	wrong := "sha256:" + "0000000000000000000000000000000000000000000000000000000000000000"
	for _, tc := range []struct {
		name string
		req  ResumeRequest
		code errcode.Code
	}{
		{"package", ResumeRequest{PackageDigest: wrong}, errcode.BindingPackageMismatch},
		{"closure", ResumeRequest{ClosureDigest: wrong}, errcode.BindingClosureMismatch},
		{"close", ResumeRequest{ClosureDigest: wrong, Document: []byte(`{"close":{"outcome":"declined"}}`)}, errcode.BindingClosureMismatch},
		{"right", ResumeRequest{PackageDigest: env.PackageDigest, ClosureDigest: env.ClosureDigest}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.RunID = env.RunID
			got, err := k.engine.Resume(context.Background(), tc.req)
			if contract.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) {
				t.Fatalf("want %q, got %v", tc.code, err)
			}
			if tc.code == "" && got.ReceiptID != env.ReceiptID {
				t.Fatalf("the sealed run answers what it sealed: %+v", got)
			}
		})
	}
}

// A turn's call made while the run waits is held to the run's closure as a
// resume is: a child it calls, edited meanwhile, is refused and never runs.
func TestTurnCallRefusesAChildEditedWhileTheRunWaits(t *testing.T) {
	k, s := stubKernel(t)
	parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - id: draft\n        agent: { task: Draft., calls: { skills: [../child] } }\n", nil)
	writeSkill(t, k, "child", `methods:
  m:
    steps:
      - { id: w, tool: stub.write, inputs: { files: [{ path: notes/a.md, text: one }] } }
`, nil)
	env := runSkill(t, k, parent, "m", "{}", "")
	if env.Status != "needs_agent" {
		t.Fatalf("the run waits on its turn: %+v", env)
	}
	path := filepath.Join(k.Options.Workspace, "child", "run.yaml")
	raw, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(raw, "# edited while the turn is open\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := k.TurnCall(context.Background(), TurnCallRequest{RunID: env.RunID, Turn: "draft", Tool: "skill:../child", Input: []byte(`{}`)})
	if contract.CodeOf(err) != errcode.ResumeClosureDrift {
		t.Fatalf("want %s, got %v", errcode.ResumeClosureDrift, err)
	}
	if s.calls["stub.write"] != 0 {
		t.Fatal("the edited child ran")
	}
}

// editingHost edits a file while it answers one capability's call: a
// package changed while the run runs, between two of its steps.
type editingHost struct {
	*stubHost
	capability, path string
}

func (h *editingHost) Invoke(ctx context.Context, call *sdk.Call, max int64) (*sdk.Result, host.PluginRef, error) {
	if call.Capability == h.capability {
		raw, err := os.ReadFile(h.path)
		if err == nil {
			err = os.WriteFile(h.path, append(raw, "# edited while the run runs\n"...), 0o644)
		}
		if err != nil {
			return nil, host.PluginRef{}, err
		}
	}
	return h.stubHost.Invoke(ctx, call, max)
}

// A child edited while its parent runs, after the run was bound and before
// the child starts, is refused and never runs: by path, and a grandchild.
func TestAChildEditedWhileTheRunRunsIsRefused(t *testing.T) {
	for _, tc := range []struct{ name, ref string }{{"child", "../child"}, {"grandchild", "../middle"}} {
		t.Run(tc.name, func(t *testing.T) {
			k, s := stubKernel(t)
			k.engine.Host = &editingHost{stubHost: k.engine.Host.(*stubHost), capability: "stub.echo", path: filepath.Join(k.Options.Workspace, "child", "run.yaml")}
			parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - { id: a, tool: stub.echo, inputs: { v: 1 } }\n      - { id: kid, skill: "+tc.ref+" }\n", nil)
			writeSkill(t, k, "middle", "methods:\n  m:\n    steps:\n      - { id: c, skill: ../child }\n", nil)
			writeSkill(t, k, "child", `methods:
  m:
    steps:
      - { id: w, tool: stub.write, inputs: { files: [{ path: notes/a.md, text: one }] } }
`, nil)
			env := runSkill(t, k, parent, "m", "{}", "")
			if env.Outcome != seal.OutcomeRefused || errCode(env) != "run_closure_drift" {
				t.Fatalf("want refused %s, got %s %q", errcode.RunClosureDrift, env.Outcome, errCode(env))
			}
			if s.calls["stub.write"] != 0 {
				t.Fatal("the edited child ran")
			}
		})
	}
}
