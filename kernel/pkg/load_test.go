package pkg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestLoadHello(t *testing.T) {
	p := mustLoad(t, "testdata/hello")
	if p.Name != "hello" || p.Description != "Greet someone by name." || p.Implicit {
		t.Fatalf("package = %+v", p)
	}
	if p.Metadata["license"] != "MIT" {
		t.Errorf("metadata = %v", p.Metadata)
	}
	if !strings.HasPrefix(p.Manual, "# Hello\n") || p.ManualDigest != contentDigest([]byte(p.Manual)) {
		t.Errorf("manual = %q digest %s", p.Manual, p.ManualDigest)
	}
	if !filepath.IsAbs(p.Dir) || p.MinimumRunx != "0.1.0" || !strings.HasPrefix(p.Digest, "sha256:") || len(p.Digest) != 71 {
		t.Errorf("dir %s minimum %s digest %s", p.Dir, p.MinimumRunx, p.Digest)
	}
	m, err := p.SelectMethod("")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "greet" || m.Description != p.Description {
		t.Errorf("sole method %q should borrow the package description, has %q", m.Name, m.Description)
	}
	if len(m.Inputs) != 2 || m.Inputs[0].Name != "name" || !m.Inputs[0].Required || m.Inputs[1].Default != int64(1) || !m.Inputs[1].HasDefault {
		t.Errorf("inputs = %+v %+v", m.Inputs[0], m.Inputs[1])
	}
	st := m.Steps[0]
	if st.Kind != KindModule || st.Tool.Module.Module != "compose.mjs" || st.Inputs["name"] != "$input.name" {
		t.Errorf("step = %+v", st)
	}
	if st.Pos != (Position{Line: 10, Column: 9}) {
		t.Errorf("step position = %+v", st.Pos)
	}
	if got := m.ResultSteps(); len(got) != 1 || got[0] != "compose" {
		t.Errorf("ResultSteps = %v", got)
	}
}

func TestLoadThroughSkillMD(t *testing.T) {
	byDir := mustLoad(t, "testdata/hello")
	byFile := mustLoad(t, "testdata/hello/SKILL.md")
	if byDir.Dir != byFile.Dir || byDir.Digest != byFile.Digest {
		t.Errorf("loading the SKILL.md differs from loading its directory")
	}
}

func TestLoadImplicit(t *testing.T) {
	p := mustLoad(t, "testdata/implicit")
	if !p.Implicit || len(p.Methods) != 1 || p.MinimumRunx != "" {
		t.Fatalf("package = %+v", p)
	}
	m, err := p.SelectMethod("")
	if err != nil || m.Name != ImplicitMethodName || m.Description != p.Description {
		t.Fatalf("method = %+v, %v", m, err)
	}
	st := m.Steps[0]
	if st.ID != ImplicitStepID || st.Kind != KindAgent || st.Agent.Task != p.Manual {
		t.Errorf("step = %+v", st)
	}
	if _, err := p.SelectMethod(ImplicitMethodName); err != nil {
		t.Error(err)
	}
}

func TestLoadEveryStepKind(t *testing.T) {
	p := mustLoad(t, "testdata/multi")
	if p.DefaultMethod != "append_event" || len(p.Methods) != 2 || p.Methods[0].Name != "append_event" {
		t.Fatalf("methods = %v default %q", p.MethodNames(), p.DefaultMethod)
	}
	appendEv := p.Method("append_event")
	if appendEv.Effects != "ask" || appendEv.Reach != "workspace" || appendEv.ResultFrom[0] != "append" {
		t.Errorf("method = %+v", appendEv)
	}
	check := appendEv.Step("check")
	if check.Kind != KindTool || check.Tool.Capability != "fs.read" || check.TimeoutSeconds != 30 ||
		check.Retry.MaxAttempts != 3 || check.Retry.RetryAfterSeconds != 5 || check.Inputs["path"] != "$$literal-dollar" {
		t.Errorf("check = %+v", check)
	}
	deep := check.Inputs["deep"].(map[string]any)["list"].([]any)
	if deep[0] != "$input.event" || deep[1] != int64(1) || deep[2] != 2.5 || deep[3] != true || deep[4] != nil {
		t.Errorf("deep literal = %#v", deep)
	}
	ap := appendEv.Step("append")
	if ap.ResultAs != "receipt" || !ap.Outputs["receipt"].Optional {
		t.Errorf("append = %+v", ap)
	}

	pub := p.Method("publish")
	ask := pub.Step("ask_first").Ask
	if len(ask.Questions) != 2 || ask.Questions[0].Options[0].Detail != "For customers." || !*ask.Questions[0].Required ||
		ask.Questions[1].Required != nil || !ask.Questions[1].FreeText {
		t.Errorf("ask = %+v", ask)
	}
	if pub.Step("gate").Ask.Reason != "Approve publishing." {
		t.Error("gate reason")
	}
	op := pub.Step("post")
	if op.Kind != KindOperation || op.Operation.Connector != "moltbook" || op.Operation.Operation != "post.create" ||
		op.Operation.IdempotencyKey != "$input.title" || op.Operation.Approval.Type != "moltbook_post" ||
		op.Effects != "allow" {
		t.Errorf("post = %+v %+v", op, op.Operation)
	}
	each := pub.Step("each")
	if each.Kind != KindSkill || each.Skill != "./child#summarize" || each.ForEach != "$input.items" || each.Concurrency != 4 || each.When == "" {
		t.Errorf("each = %+v", each)
	}
	think := pub.Step("think").Agent
	if !think.Ask || think.Calls.Operations[0] != "fixture/forge/issue.read" || think.Calls.Skills[0] != "runx/echo" {
		t.Errorf("think = %+v", think)
	}
	script := pub.Step("orchestrate").Script
	if script.Module != "scripts/run.mjs" || script.MaxCalls != 100 || script.Concurrency != 2 || script.Calls.Tools[0] != "fs.read" {
		t.Errorf("script = %+v", script)
	}
	shell := pub.Step("shell")
	cmd := shell.Tool.Command
	if shell.Kind != KindCommand || cmd.Command != "bin/tool" || cmd.Args[1] != "3" || cmd.InputMode != "env" ||
		cmd.Environment.Required[0] != "API_BASE" || cmd.Environment.Optional[0] != "LOG_LEVEL" {
		t.Errorf("shell = %+v", cmd)
	}
	mod := pub.Step("module")
	if mod.Kind != KindModule || mod.Tool.Module.Module != "scripts/run.mjs" || mod.Tool.Module.Requires[0] != "parseData" ||
		mod.Tool.Module.Environment["REGION"] != "eu-west-1" || mod.Reach != "inputs" {
		t.Errorf("module = %+v", mod.Tool.Module)
	}
}

func TestCommandInputModeDefaultsToStdin(t *testing.T) {
	p, _, err := loadProfile(t, "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        tool: { command: ./x }\n")
	if err != nil {
		t.Fatal(err)
	}
	if p.Methods[0].Steps[0].Tool.Command.InputMode != "stdin" {
		t.Error("input_mode should default to stdin")
	}
}

func TestLoadRefusesNonPackages(t *testing.T) {
	noSkill := writePackage(t, map[string]string{"README.md": "# hi\n"})
	cases := []struct {
		name, ref, code string
	}{
		{"empty ref", "", "package_not_found"},
		{"missing", filepath.Join(t.TempDir(), "nope"), "package_not_found"},
		{"lone markdown", filepath.Join(noSkill, "README.md"), "package_not_found"},
		{"no SKILL.md", noSkill, "package_not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(c.ref, LoadOptions{RunxVersion: testRunx})
			wantRefusal(t, err, errcode.Code(c.code), 0, 0)
		})
	}
}

func TestLoadRefusesSymlinkedSkillMD(t *testing.T) {
	real := writePackage(t, map[string]string{"SKILL.md": testSkillMD})
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(real, "SKILL.md"), filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir, LoadOptions{RunxVersion: testRunx})
	wantRefusal(t, err, errcode.PackageSymlinkRefused, 0, 0)
}

func TestSkillMDRefusals(t *testing.T) {
	cases := []struct {
		name, skill string
		line, col   int
	}{
		{"no front matter", "# Title\n", 1, 1},
		{"unclosed", "---\nname: x\ndescription: y\n", 1, 1},
		{"no name", "---\ndescription: y\n---\nm\n", 2, 1},
		{"no description", "---\nname: x\n---\nm\n", 2, 1},
		{"empty name", "---\nname: \"\"\ndescription: y\n---\nm\n", 2, 7},
		{"name not a string", "---\nname: [a]\ndescription: y\n---\nm\n", 2, 7},
		{"anchor in front matter", "---\nname: x\ndescription: &d y\n---\nm\n", 3, 14},
		{"syntax", "---\nname: [x\ndescription: y\n---\nm\n", 3, 1},
		{"not a mapping", "---\n- a\n---\nm\n", 2, 1},
		{"implicit with no manual", "---\nname: x\ndescription: y\n---\n\n  \n", 0, 0},
		{"invalid utf-8", "---\nname: \xff\ndescription: y\n---\nm\n", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writePackage(t, map[string]string{"SKILL.md": c.skill})
			_, err := Load(dir, LoadOptions{RunxVersion: testRunx})
			wantRefusal(t, err, errcode.SkillMDInvalid, c.line, c.col)
		})
	}
}

func TestSkillMDAcceptsCRLFAndBOM(t *testing.T) {
	dir := writePackage(t, map[string]string{"SKILL.md": "\ufeff---\r\nname: x\r\ndescription: y\r\n---\r\nManual.\r\n"})
	p := mustLoad(t, dir)
	if p.Name != "x" || p.Description != "y" || p.Manual != "Manual.\r\n" {
		t.Errorf("package = %+v", p)
	}
}

func TestLoadRefusesMisnamedProfile(t *testing.T) {
	dir := writePackage(t, map[string]string{"SKILL.md": testSkillMD, "run.yml": "minimum_runx: 0.1.0\n"})
	_, err := Load(dir, LoadOptions{RunxVersion: testRunx})
	wantRefusal(t, err, errcode.RunxYAMLInvalid, 0, 0)
}

func TestLoadNeedsAValidRunxVersion(t *testing.T) {
	_, err := Load("testdata/hello", LoadOptions{})
	if err == nil || CodeOf(err) != "" {
		t.Fatalf("a missing RunxVersion is a caller bug, not a refusal: %v", err)
	}
}

func TestMinimumRunx(t *testing.T) {
	const methods = "methods:\n  m:\n    steps:\n      - id: a\n        tool: fs.read\n"
	cases := []struct {
		name, runx, yaml string
		code             errcode.Code
		line, col        int
	}{
		{"same version", "0.1.0", "minimum_runx: 0.1.0\n" + methods, "", 0, 0},
		{"older package", "0.3.1", "minimum_runx: 0.2.9\n" + methods, "", 0, 0},
		{"newer package", "0.1.0", "minimum_runx: 0.2.0\n" + methods, errcode.MinimumRunxUnsupported, 1, 15},
		{"quoted newer", "0.1.0", "minimum_runx: \"1.0.0\" # comment\n" + methods, errcode.MinimumRunxUnsupported, 1, 15},
		{"pre-release runx", "0.2.0-dev", "minimum_runx: 0.2.0\n" + methods, errcode.MinimumRunxUnsupported, 1, 15},
		{"pre-release package", "0.2.0", "minimum_runx: 0.2.0-rc.1\n" + methods, "", 0, 0},
		{"missing", "0.1.0", methods, errcode.MinimumRunxMissing, 1, 1},
		{"empty file", "0.1.0", "", errcode.MinimumRunxMissing, 1, 1},
		{"not semver", "0.1.0", "minimum_runx: \"1.0\"\n" + methods, errcode.MinimumRunxInvalid, 1, 15},
		{"not a string", "0.1.0", "minimum_runx: 1\n" + methods, errcode.MinimumRunxInvalid, 1, 15},
		// Read before anything else: a newer package is refused by version
		// even where this runx cannot parse it or refuses its syntax.
		{"newer and unparsable", "0.1.0", "minimum_runx: 9.0.0\nmethods: [\n", errcode.MinimumRunxUnsupported, 1, 15},
		{"newer with an anchor", "0.1.0", "minimum_runx: 9.0.0\nx: &a 1\n" + methods, errcode.MinimumRunxUnsupported, 1, 15},
		{"newer after a comment", "0.1.0", "# generated\n\nminimum_runx: 9.0.0\nmethods: [\n", errcode.MinimumRunxUnsupported, 3, 15},
		{"newer with CRLF", "0.1.0", "minimum_runx: 9.0.0\r\nmethods: [\r\n", errcode.MinimumRunxUnsupported, 1, 15},
		{"newer in flow style", "0.1.0", "{minimum_runx: 9.0.0, methods: {}, future: *x}\n", errcode.MinimumRunxUnsupported, 1, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writePackage(t, map[string]string{"SKILL.md": testSkillMD, "run.yaml": c.yaml})
			_, err := Load(dir, LoadOptions{RunxVersion: c.runx})
			if c.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e := wantRefusal(t, err, c.code, c.line, c.col)
			if c.code == errcode.MinimumRunxUnsupported {
				for _, want := range []string{`"sample"`, c.runx} {
					if !strings.Contains(e.Message, want) {
						t.Errorf("message %q does not name %s", e.Message, want)
					}
				}
			}
		})
	}
}

func TestPackageIsJSONFriendly(t *testing.T) {
	for _, dir := range []string{"testdata/hello", "testdata/multi", "testdata/implicit"} {
		p := mustLoad(t, dir)
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var back Package
		if err := json.Unmarshal(raw, &back); err != nil || back.Digest != p.Digest || len(back.Methods) != len(p.Methods) {
			t.Fatalf("%s: round trip lost data: %v", dir, err)
		}
	}
}
