package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const bigInputSkill = `minimum_runx: 0.1.0
methods:
  walk:
    description: Walk large inputs.
    inputs:
      items: { type: array, required: true }
      doc: { type: object, required: true }
      name: { type: string, required: true }
    steps:
      - id: walk
        script:
          module: walk.mjs
          max_calls: 20
          calls: { skills: [./child] }
  leak:
    description: Return a reference it was not given.
    inputs:
      doc: { type: object, required: true }
    steps:
      - id: leak
        script: { module: leak.mjs }
`

const walkModule = `export default async function (input, ctx) {
  const refs = input.items.every((i) => typeof i === "object" && typeof i.$ref === "string");
  const docIsRef = typeof input.doc.$ref === "string";
  let total = 0;
  for (const item of input.items) { const v = await ctx.read(item); total += v.length; }
  const doc = await ctx.read(input.doc);
  const inline = await ctx.read(input.name);
  let unknown = null;
  try { await ctx.read({ $ref: "input/nope" }); } catch (e) { unknown = e.code; }
  const child = await ctx.call("skill:./child", { text: input.items[1] });
  return { refs, docIsRef, total, docSize: doc.blob.length, inline, unknown, childLength: child.length, first: input.items[0] };
}
`

// Script inputs past 64 KiB reach the module as references: an array item
// by item, anything else whole. ctx.read gives each one's content (a read
// the run records), an inline value back as it is, and an unknown
// reference rejects with its code; a reference given to a call reaches the
// callee as its content, and one in the output is given back as content.
func TestScriptInputsPast64KiBAreReferences(t *testing.T) {
	e := newRunxEnv(t)
	e.write("big/SKILL.md", "---\nname: big\ndescription: Walks large inputs.\n---\nManual.\n")
	e.write("big/run.yaml", bigInputSkill)
	e.write("big/walk.mjs", walkModule)
	e.write("big/leak.mjs", `export default async function (input, ctx) { return { leaked: { $ref: "input/other" }, doc: input.doc }; }`)
	e.write("big/child/SKILL.md", "---\nname: child\ndescription: Measures text.\n---\nManual.\n")
	e.write("big/child/run.yaml", "minimum_runx: 0.1.0\nmethods:\n  run:\n    inputs:\n      text: { type: string, required: true }\n    steps:\n      - id: m\n        tool: { module: m.mjs }\n")
	e.write("big/child/m.mjs", `export default function ({ text }) { return { length: text.length }; }`)

	item := func(c string) string { return strings.Repeat(c, 30<<10) }
	items, _ := json.Marshal([]string{item("a"), item("b"), item("c")})
	doc, _ := json.Marshal(map[string]string{"blob": strings.Repeat("d", 70<<10)})
	var out struct {
		Refs        bool   `json:"refs"`
		DocIsRef    bool   `json:"docIsRef"`
		Total       int    `json:"total"`
		DocSize     int    `json:"docSize"`
		Inline      string `json:"inline"`
		Unknown     string `json:"unknown"`
		ChildLength int    `json:"childLength"`
		First       string `json:"first"`
	}
	e.skill(&out, "./big#walk", "items="+string(items), "doc="+string(doc), "name=small")
	if !out.Refs || !out.DocIsRef || out.Total != 90<<10 || out.DocSize != 70<<10 || out.Inline != "small" ||
		out.Unknown != "script_reference_unknown" || out.ChildLength != 30<<10 || out.First != item("a") {
		t.Fatalf("script saw %+v", fmt.Sprintf("%v %v %d %d %q %q %d %d", out.Refs, out.DocIsRef, out.Total, out.DocSize, out.Inline, out.Unknown, out.ChildLength, len(out.First)))
	}

	// A reference in the output that names no input of the step fails it.
	cmd := e.command("skill", "./big#leak", "-i", "doc="+string(doc), "--json")
	raw, _ := cmd.Output()
	if !strings.Contains(string(raw), `"code": "script_reference_unknown"`) || !strings.Contains(string(raw), "at /leaked") {
		t.Fatalf("a leaked reference: %s", raw)
	}
}

// A script's output past the 4 MiB one answer of the worker carries comes
// to the kernel in parts of 2 MiB and is kept whole: a 6 MiB output with
// multi-byte characters at every part boundary arrives exactly.
func TestScriptOutputPast4MiBArrivesInParts(t *testing.T) {
	e := newRunxEnv(t)
	e.write("large/SKILL.md", "---\nname: large\ndescription: Returns a large output.\n---\nManual.\n")
	e.write("large/run.yaml", "minimum_runx: 0.1.0\nmethods:\n  run:\n    steps:\n      - id: big\n        script: { module: big.mjs }\n")
	e.write("large/big.mjs", `export default async function () { return { text: "é".repeat(3 << 20) + "end", n: 1 }; }`)
	var out struct {
		Text string `json:"text"`
		N    int    `json:"n"`
	}
	e.skill(&out, "./large")
	if out.N != 1 || len(out.Text) != 6<<20+3 || !strings.HasSuffix(out.Text, "éend") || strings.Count(out.Text, "é") != 3<<20 {
		t.Fatalf("output of %d bytes, n %d", len(out.Text), out.N)
	}
}
