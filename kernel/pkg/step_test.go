package pkg

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// withStep returns a run.yaml whose method m declares inputs title and items
// and a first step prev (lines 8-9); the step under test starts at line 10,
// its first key at column 9.
func withStep(step string) string {
	return "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs:\n      title: { type: string }\n      items: { type: array }\n" +
		"    steps:\n      - id: prev\n        tool: fs.read\n" + step
}

func TestStepRefusals(t *testing.T) {
	const s = "      - id: s\n" // line 10
	cases := []struct {
		name, step string
		code       errcode.Code
		line, col  int
	}{
		{"no id", "      - tool: fs.read\n", errcode.StepInvalid, 10, 9},
		{"id not a name", "      - id: a.b\n        tool: fs.read\n", errcode.StepInvalid, 10, 13},
		{"duplicate id", "      - id: prev\n        tool: fs.read\n", errcode.StepIDDuplicate, 10, 9},
		{"no kind", s + "        inputs: {}\n", errcode.StepInvalid, 10, 9},
		{"two kinds", s + "        tool: fs.read\n        skill: ./x\n", errcode.StepInvalid, 12, 9},
		{"operation field on a tool", s + "        tool: fs.read\n        idempotency_key: k\n", errcode.StepInvalid, 12, 9},

		{"capability id with a space", s + "        tool: \"fs read\"\n", errcode.StepInvalid, 11, 15},
		{"agent context bare name", s + "        agent:\n          task: t\n          context: { skills: [x] }\n", errcode.StepInvalid, 13, 31},
		{"agent context method", s + "        agent: { task: t, context: { skills: [\"./x#m\"] } }\n", errcode.StepInvalid, 11, 47},
		{"agent context twice", s + "        agent: { task: t, context: { skills: [./x, ./x] } }\n", errcode.StepInvalid, 11, 52},
		{"agent context too many", s + "        agent: { task: t, context: { skills: [./a, ./b, ./c, ./d, ./e, ./f, ./g, ./h, ./i] } }\n", errcode.StepInvalid, 11, 87},
		{"agent context unknown key", s + "        agent: { task: t, context: { packets: [x] } }\n", errcode.RunxYAMLUnknownField, 11, 38},
		{"agent calls load not a rule", s + "        agent: { task: t, calls: { tools: [fs.read], load: [registry] } }\n", errcode.StepInvalid, 11, 61},
		{"agent calls load partial wildcard", s + "        agent: { task: t, calls: { load: [acme/we*] } }\n", errcode.StepInvalid, 11, 43},
		{"script calls load", s + "        script: { module: m.mjs, calls: { load: [registry] } }\n", errcode.StepFieldUnsupported, 11, 43},
		{"operation result", s + "        operation: forge/issue.read\n        result: { required: [id] }\n", errcode.StepFieldUnsupported, 12, 9},
		{"output packet not a packet id", s + "        tool: fs.read\n        outputs: { r: { type: object, packet: Verdict } }\n", errcode.StepInvalid, 12, 47},
		{"tool neither module nor command", s + "        tool: { requires: [x] }\n", errcode.StepInvalid, 11, 15},
		{"tool both module and command", s + "        tool: { module: compose.mjs, command: x }\n", errcode.StepInvalid, 11, 38},
		{"module traversal", s + "        tool: { module: ../x.mjs }\n", errcode.StepInvalid, 11, 25},
		{"module absolute", s + "        tool: { module: /x.mjs }\n", errcode.StepInvalid, 11, 25},
		{"module not javascript", s + "        tool: { module: compose.ts }\n", errcode.StepInvalid, 11, 25},
		{"module not normalized", s + "        tool: { module: a/../compose.mjs }\n", errcode.StepInvalid, 11, 25},
		{"module missing", s + "        tool: { module: other.mjs }\n", errcode.StepInvalid, 10, 9},
		{"args on a module", s + "        tool: { module: compose.mjs, args: [a] }\n", errcode.StepInvalid, 11, 38},
		{"module environment name", s + "        tool: { module: compose.mjs, environment: { 1X: a } }\n", errcode.StepInvalid, 11, 53},
		{"module environment value", s + "        tool: { module: compose.mjs, environment: { X: 1 } }\n", errcode.StepInvalid, 11, 56},
		{"requires on a command", s + "        tool: { command: x, requires: [a] }\n", errcode.StepInvalid, 11, 29},
		{"empty command", s + "        tool: { command: \"\" }\n", errcode.StepInvalid, 11, 26},
		{"command arg not a string", s + "        tool: { command: x, args: [1] }\n", errcode.StepInvalid, 11, 36},
		{"command input_mode", s + "        tool: { command: x, input_mode: file }\n", errcode.StepInvalid, 11, 41},
		{"command environment name", s + "        tool: { command: x, environment: { required: [A, A] } }\n", errcode.StepInvalid, 11, 58},

		{"operation without connector", s + "        operation: post\n", errcode.StepInvalid, 11, 20},
		{"approval without reason", s + "        operation: a/b\n        approval: { type: t }\n", errcode.StepInvalid, 12, 19},
		{"empty idempotency key", s + "        operation: a/b\n        idempotency_key: \"\"\n", errcode.StepInvalid, 12, 26},
		{"idempotency key reference", s + "        operation: a/b\n        idempotency_key: $input.nope\n", errcode.StepInvalid, 12, 26},

		{"skill ref with a space", s + "        skill: ./a b\n", errcode.StepInvalid, 11, 16},
		{"skill ref empty method", s + "        skill: ./a#\n", errcode.StepInvalid, 11, 16},
		{"agent without task", s + "        agent: { ask: true }\n", errcode.StepInvalid, 11, 16},
		{"agent operation ref", s + "        agent: { task: t, calls: { operations: [nope] } }\n", errcode.StepInvalid, 11, 49},
		{"agent ask not a boolean", s + "        agent: { task: t, ask: yes }\n", errcode.StepInvalid, 11, 32},
		{"ask reason and questions", s + "        ask: { reason: r, questions: [] }\n", errcode.StepInvalid, 11, 14},
		{"ask nothing", s + "        ask: {}\n", errcode.StepInvalid, 11, 14},
		{"ask four questions", s + "        ask: { questions: [{id: a, prompt: p}, {id: b, prompt: p}, {id: c, prompt: p}, {id: d, prompt: p}] }\n", errcode.StepInvalid, 11, 27},
		{"ask duplicate question", s + "        ask: { questions: [{id: a, prompt: p}, {id: a, prompt: q}] }\n", errcode.StepInvalid, 11, 48},
		{"ask five options", s + "        ask: { questions: [{id: a, prompt: p, options: [{label: a}, {label: b}, {label: c}, {label: d}, {label: e}]}] }\n", errcode.StepInvalid, 11, 56},
		{"ask option without label", s + "        ask: { questions: [{id: a, prompt: p, options: [{detail: d}]}] }\n", errcode.StepInvalid, 11, 57},
		{"script without module", s + "        script: { max_calls: 3 }\n", errcode.StepInvalid, 11, 17},
		{"script max_calls over the ceiling", s + "        script: { module: compose.mjs, max_calls: 10001 }\n", errcode.StepInvalid, 11, 51},

		{"reference to an undeclared input", s + "        tool: fs.read\n        inputs: { x: $input.nope }\n", errcode.StepInvalid, 12, 22},
		{"reference to a later step", s + "        tool: fs.read\n        inputs: { x: $steps.later.y }\n      - id: later\n        tool: fs.read\n", errcode.StepInvalid, 12, 22},
		{"reference to itself", s + "        tool: fs.read\n        inputs: { x: $steps.s.y }\n", errcode.StepInvalid, 12, 22},
		{"nested reference", s + "        tool: fs.read\n        inputs: { x: { y: [$nope] } }\n", errcode.StepInvalid, 12, 28},
		{"$item outside a fan-out", s + "        tool: fs.read\n        inputs: { x: $item.y }\n", errcode.StepInvalid, 12, 22},
		{"unknown $run field", s + "        tool: fs.read\n        inputs: { x: $run.user }\n", errcode.StepInvalid, 12, 22},
		{"empty path segment", s + "        tool: fs.read\n        inputs: { x: $input.title. }\n", errcode.StepInvalid, 12, 22},
		{"inputs not a mapping", s + "        tool: fs.read\n        inputs: [a]\n", errcode.StepInvalid, 12, 17},
		{"for_each literal", s + "        tool: fs.read\n        for_each: items\n", errcode.StepInvalid, 12, 19},
		{"for_each over $item", s + "        tool: fs.read\n        for_each: $item.x\n", errcode.StepInvalid, 12, 19},
		{"concurrency without for_each", s + "        tool: fs.read\n        concurrency: 2\n", errcode.StepInvalid, 12, 9},
		{"concurrency zero", s + "        tool: fs.read\n        for_each: $input.items\n        concurrency: 0\n", errcode.StepInvalid, 13, 22},
		{"result_as undeclared", s + "        tool: fs.read\n        result_as: out\n", errcode.StepInvalid, 12, 20},
		{"effects", s + "        tool: fs.read\n        effects: always\n", errcode.StepInvalid, 12, 18},
		{"reach", s + "        tool: fs.read\n        reach: network\n", errcode.StepInvalid, 12, 16},
		{"timeout zero", s + "        tool: fs.read\n        timeout_seconds: 0\n", errcode.StepInvalid, 12, 26},
		{"timeout not an integer", s + "        tool: fs.read\n        timeout_seconds: \"30\"\n", errcode.StepInvalid, 12, 26},
		{"when empty", s + "        tool: fs.read\n        when: \" \"\n", errcode.StepInvalid, 12, 15},
		{"output type", s + "        tool: fs.read\n        outputs: { o: { type: text } }\n", errcode.StepInvalid, 12, 31},
		{"output schema", s + "        tool: fs.read\n        outputs: { o: { schema: { type: 3 } } }\n", errcode.StepInvalid, 12, 33},
		{"retry on ask", s + "        ask: { reason: r }\n        retry: { max_attempts: 2 }\n", errcode.StepInvalid, 12, 9},
		{"retry on an agent", s + "        agent: { task: t }\n        retry: { max_attempts: 2 }\n", errcode.StepInvalid, 12, 9},
		{"retry with effects", s + "        tool: fs.write\n        effects: allow\n        retry: { max_attempts: 2 }\n", errcode.StepInvalid, 13, 9},
		{"retry on a keyed write", s + "        operation: a/b\n        idempotency_key: k\n        retry: { max_attempts: 2 }\n", errcode.StepInvalid, 13, 9},
		{"retry once", s + "        tool: fs.read\n        retry: { max_attempts: 1 }\n", errcode.StepInvalid, 12, 32},
		{"retry without attempts", s + "        tool: fs.read\n        retry: { retry_after_seconds: 3 }\n", errcode.StepInvalid, 12, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := loadProfile(t, withStep(c.step))
			wantRefusal(t, err, c.code, c.line, c.col)
		})
	}
}

func TestMethodRefusals(t *testing.T) {
	const step = "    steps: [{ id: a, tool: fs.read }]\n"
	cases := []struct {
		name, yaml string
		code       errcode.Code
		line, col  int
	}{
		{"no methods", "minimum_runx: 0.1.0\n", errcode.MethodInvalid, 1, 1},
		{"empty methods", "minimum_runx: 0.1.0\nmethods: {}\n", errcode.MethodInvalid, 2, 10},
		{"method name", "minimum_runx: 0.1.0\nmethods:\n  a#b:\n" + step, errcode.MethodInvalid, 3, 3},
		{"no steps", "minimum_runx: 0.1.0\nmethods:\n  m:\n    description: d\n", errcode.MethodInvalid, 4, 5},
		{"empty steps", "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps: []\n", errcode.MethodInvalid, 4, 5},
		{"method not a mapping", "minimum_runx: 0.1.0\nmethods:\n  m: run\n", errcode.MethodInvalid, 3, 6},
		{"description missing among several", "minimum_runx: 0.1.0\nmethods:\n  a:\n    description: A.\n" + step + "  b:\n" + step, errcode.MethodDescriptionMissing, 6, 3},
		{"default_method unknown", "minimum_runx: 0.1.0\ndefault_method: c\nmethods:\n  a:\n" + step, errcode.MethodNotFound, 2, 17},
		{"result_from unknown step", "minimum_runx: 0.1.0\nmethods:\n  m:\n    result_from: [b]\n" + step, errcode.MethodInvalid, 4, 19},
		{"method effects", "minimum_runx: 0.1.0\nmethods:\n  m:\n    effects: maybe\n" + step, errcode.MethodInvalid, 4, 14},
		{"input name", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a.b: { type: string } }\n" + step, errcode.MethodInvalid, 4, 15},
		{"input without type", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { required: true } }\n" + step, errcode.MethodInvalid, 4, 18},
		{"input type unknown", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { type: text } }\n" + step, errcode.MethodInvalid, 4, 26},
		{"required with default", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { type: string, required: true, default: x } }\n" + step, errcode.MethodInvalid, 4, 50},
		{"default of the wrong type", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { type: integer, default: 1.5 } }\n" + step, errcode.MethodInvalid, 4, 44},
		{"null default on a string", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { type: string, default: null } }\n" + step, errcode.MethodInvalid, 4, 43},
		{"schema does not compile", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { type: string, schema: { minLength: -1 } } }\n" + step, errcode.MethodInvalid, 4, 42},
		{"schema with a remote ref", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { type: string, schema: { $ref: \"file:///etc/passwd\" } } }\n" + step, errcode.MethodInvalid, 4, 42},
		{"default breaks schema", "minimum_runx: 0.1.0\nmethods:\n  m:\n    inputs: { a: { type: string, default: x, schema: { minLength: 2 } } }\n" + step, errcode.MethodInvalid, 4, 43},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := loadProfile(t, c.yaml)
			e := wantRefusal(t, err, c.code, c.line, c.col)
			if c.code == errcode.MethodDescriptionMissing && !strings.Contains(e.Message, `"b"`) {
				t.Errorf("message does not name the method: %s", e.Message)
			}
		})
	}
}

func TestReferencesAccepted(t *testing.T) {
	_, _, err := loadProfile(t, withStep("      - id: s\n        tool: fs.read\n        for_each: $steps.prev.list\n"+
		"        inputs: { a: $input, b: $input.title.x, c: $steps.prev, d: $item, e: $item.a.0, f: $run.act, g: $run.id, h: $$input, i: \"not $ref\" }\n"))
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgentContextAndLoad: an agent step's context.skills and calls.load
// are read as written, so preparation resolves and bounds each context
// skill and a turn's load is admitted against its rules (kernel/run).
func TestAgentContextAndLoad(t *testing.T) {
	p, _, err := loadProfile(t, withStep("      - id: s\n        agent:\n          task: t\n"+
		"          context: { skills: [../taste-profile, \"registry:acme/voice@1.0.0\"] }\n"+
		"          calls: { load: [acme/*, \"*/weather\"] }\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := p.Method("m").Step("s").Agent
	if strings.Join(a.ContextSkills, ",") != "../taste-profile,registry:acme/voice@1.0.0" || strings.Join(a.Calls.Load, ",") != "acme/*,*/weather" {
		t.Fatalf("context %v, load %v", a.ContextSkills, a.Calls.Load)
	}
}
