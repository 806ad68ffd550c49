package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const artifactSkill = `minimum_runx: 0.1.0
methods:
  page:
    description: Admit a file and read its first page.
    inputs:
      path: { type: string, required: true }
    steps:
      - id: admit
        tool: artifact.admit
        inputs: { path: $input.path }
      - id: read
        tool: artifact.read
        inputs: { ref: $steps.admit.ref, encoding: utf8, max_bytes: 4194304 }
  keep:
    description: Retain a value and open it again.
    reach: inputs
    inputs:
      value: { type: array, required: true }
    steps:
      - id: store
        tool: artifact.store
        inputs: { value: $input.value }
      - id: open
        tool: artifact.open
        inputs: { artifact: $steps.store }
      - id: read
        tool: artifact.read
        inputs: { ref: $steps.open.ref, encoding: json_array }
`

// The artifact family end to end: the kernel finds artifact.* only through
// the plugin's description, holds admit's path to the step's reach, and
// checks every answer against its declared schema; a page carries the
// file's content and digests.
func TestArtifactsThroughTheKernel(t *testing.T) {
	e := newRunxEnv(t)
	e.write("art/SKILL.md", "---\nname: art\ndescription: Pages artifacts.\n---\nManual.\n")
	e.write("art/run.yaml", artifactSkill)
	text := strings.Repeat("line of the log, é\n", 4000)
	e.write("data/app.log", text)

	var page struct {
		Schema string `json:"schema"`
		Data   string `json:"data"`
		Bytes  int    `json:"bytes"`
		EOF    bool   `json:"eof"`
	}
	e.skill(&page, "./art#page", "path=data/app.log")
	if page.Schema != "runx.artifact_page.v1" || page.Data != text || page.Bytes != len(text) || !page.EOF {
		t.Fatalf("page %+v", page.Schema)
	}

	// A path outside the workspace is refused by the kernel's reach gate
	// before the plugin is called.
	var r skillRun
	cmd := e.command("skill", "./art#page", "-i", "path=/etc/hostname", "--json")
	out, _ := cmd.Output()
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("no JSON: %s", out)
	}
	if r.Outcome == "completed" || !strings.Contains(string(out), `"code": "reach_outside_inputs"`) {
		t.Fatalf("admitting outside the workspace: %s", out)
	}

	var items struct {
		Items []any `json:"items"`
	}
	e.skill(&items, "./art#keep", `value=[{"b":1,"a":2},"x"]`)
	if got, _ := json.Marshal(items.Items); string(got) != `[{"a":2,"b":1},"x"]` {
		t.Fatalf("retained items %s", items.Items)
	}
}
