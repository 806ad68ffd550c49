package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// A turn's context skills are locators of its context (skill:<n>, type
// runx.skill.context.v1, scope advisory) and read back whole; a step with
// calls.load offers load with its input schema, and a load its rules do
// not name is refused.
func TestTurnContextSkillsAndLoad(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{
		"voice/SKILL.md":  "---\nname: voice\ndescription: How we write.\n---\nWrite plainly.\n",
		"writer/SKILL.md": "---\nname: writer\ndescription: Writes a note.\n---\nWrite the note.\n",
		"writer/run.yaml": "minimum_runx: 0.1.0\nmethods:\n  write:\n    steps:\n      - id: draft\n        agent:\n          task: Write.\n" +
			"          context: { skills: [../voice] }\n          calls: { load: [acme/*] }\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{filepath.Join(ws, "writer")}}, nil)
	if res, out := call(t, cs, "writer", map[string]any{}); res.IsError || out["status"] != "needs_agent" {
		t.Fatalf("writer = %v", out)
	}
	res, out := call(t, cs, "turn_status", map[string]any{"turn": "draft"})
	if res.IsError {
		t.Fatalf("turn_status = %v", out)
	}
	var skill map[string]any
	for _, e := range out["context"].([]any) {
		if m := e.(map[string]any); m["locator"] == "skill:0" {
			skill = m
		}
	}
	if skill == nil || skill["type"] != "runx.skill.context.v1" || skill["scope"] != "advisory" || !strings.Contains(str(skill["summary"]), "untrusted") {
		t.Fatalf("context = %v", out["context"])
	}
	var load map[string]any
	for _, c := range out["calls"].([]any) {
		if m := c.(map[string]any); m["tool"] == "load" {
			load = m
		}
	}
	if load == nil || load["kind"] != "load" || load["input_schema"] == nil {
		t.Fatalf("calls = %v", out["calls"])
	}
	_, read := call(t, cs, "turn_read", map[string]any{"turn": "draft", "locator": "skill:0"})
	if text := str(read["text"]); !strings.Contains(text, "Write plainly.") || !strings.Contains(text, `"trust":"untrusted"`) {
		t.Fatalf("skill:0 reads %v", read)
	}
	res, out = call(t, cs, "turn_call", map[string]any{"turn": "draft", "tool": "load", "input": map[string]any{"skill": "evil/voice"}})
	if code := errorCode(t, res, out); code != "load_not_allowed" {
		t.Fatalf("a load outside calls.load: %s %v", code, out)
	}
}
