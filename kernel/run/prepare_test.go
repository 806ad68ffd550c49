package run

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// Preparation resolves every step before any runs: each method below
// writes first and names something that does not resolve after, and is
// refused with its code before the write is sent, a step a guard would
// skip included.
func TestPreparationResolvesEveryStepBeforeAnyRuns(t *testing.T) {
	const write = "      - { id: w, tool: stub.write, inputs: { files: [{ path: notes/a.md, text: one }] } }\n"
	for _, tc := range []struct{ name, steps, extra, code string }{
		{"unknown tool of a known plugin", "      - { id: b, tool: stub.nope }\n", "", "tool_unknown"},
		{"tool of no plugin", "      - { id: b, tool: nosuch.tool }\n", "", "tool_unknown"},
		{"unknown tool in a skipped branch", "      - { id: b, tool: stub.nope, when: input.go }\n", "", "tool_unknown"},
		{"unknown tool a turn lists", "      - id: b\n        agent: { task: Draft., calls: { tools: [stub.nope] } }\n", "", "tool_unknown"},
		{"unknown tool a script lists", "      - id: b\n        script: { module: s.mjs, calls: { tools: [stub.nope] } }\n", "", "tool_unknown"},
		{"unknown operation a turn lists", "      - id: b\n        agent: { task: Draft., calls: { operations: [conn/nope] } }\n", "", "connector_not_installed"},
		{"unresolvable child", "      - { id: b, skill: ../nowhere }\n", "", "package_not_found"},
		{"unresolvable child in a skipped branch", "      - { id: b, skill: nowhere, when: input.go }\n", "", "skill_not_found"},
		{"unresolvable child a script lists", "      - id: b\n        script: { module: s.mjs, calls: { skills: [../nowhere] } }\n", "", "package_not_found"},
		{"unknown tool in a child", "      - { id: b, skill: ../badchild }\n", "", "tool_unknown"},
		{"result producer without a contract", "      - { id: b, tool: stub.echo }\n", "    result_from: [b]\n", "result_contract_missing"},
		{"module producer without outputs", "      - { id: b, tool: { module: m.mjs } }\n", "    result_from: [b]\n", "result_contract_missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, s := stubKernel(t)
			writeSkill(t, k, "badchild", "methods:\n  m:\n    steps:\n      - { id: x, tool: stub.nope }\n", nil)
			dir := writeSkill(t, k, "s", "methods:\n  m:\n    inputs: { go: { type: boolean, default: false } }\n"+tc.extra+"    steps:\n"+write+tc.steps,
				map[string]string{"s.mjs": "export default async () => ({})\n", "m.mjs": "export default (i) => i\n"})
			env := runSkill(t, k, dir, "m", "{}", "")
			if env.Outcome != seal.OutcomeBlocked || errCode(env) != tc.code {
				raw, _ := json.Marshal(env)
				t.Fatalf("want blocked %s, got %s %q: %s", tc.code, env.Outcome, errCode(env), raw)
			}
			if s.calls["stub.write"] != 0 {
				t.Fatal("the first step's write was sent before preparation refused the run")
			}
		})
	}
}

// A result producer's contract may come from what it runs: a child method
// that declares outputs, or a capability that declares an output schema.
func TestResultContractFromWhatTheProducerRuns(t *testing.T) {
	k, _ := stubKernel(t)
	writeSkill(t, k, "child", "methods:\n  m:\n    outputs: { v: { type: integer } }\n    steps:\n      - { id: a, tool: stub.echo, inputs: { v: 1 } }\n", nil)
	dir := writeSkill(t, k, "s", "methods:\n  m:\n    result_from: [c]\n    steps:\n      - { id: c, skill: ../child }\n      - { id: d, tool: stub.echo, inputs: { x: 1 } }\n", nil)
	env := runSkill(t, k, dir, "m", "{}", "")
	if env.Outcome != seal.OutcomeCompleted {
		raw, _ := json.Marshal(env)
		t.Fatalf("a child's declared outputs are its step's contract: %s", raw)
	}
}
