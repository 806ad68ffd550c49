package run

import (
	"testing"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// A kernel-owned tool reads the run calling it through the port
// (nativeport.go): run.read without run_id reads the root of the calling
// run's tree, however deep the caller, and with run_id the run it names.
func TestRunReadWithoutRunIDReadsTheRootOfTheTree(t *testing.T) {
	k, _ := stubKernel(t)
	parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - { id: kid, skill: ../child }\n", nil)
	writeSkill(t, k, "child", "methods:\n  m:\n    steps:\n      - { id: grand, skill: ../grand }\n", nil)
	writeSkill(t, k, "grand", "methods:\n  m:\n    steps:\n      - { id: r, tool: run.read }\n", nil)
	env := runSkill(t, k, parent, "m", "{}", "")
	if env.Outcome != seal.OutcomeCompleted {
		t.Fatalf("got %+v", env)
	}
	if got := resultOf(t, env)["run_id"]; got != env.RunID {
		t.Fatalf("run.read from a grandchild read %v, not the root %s", got, env.RunID)
	}

	named := writeSkill(t, k, "named", "methods:\n  m:\n    inputs:\n      id: { type: string, required: true }\n    steps:\n      - { id: r, tool: run.read, inputs: { run_id: $input.id } }\n", nil)
	env2 := runSkill(t, k, named, "m", `{"id":"`+env.RunID+`"}`, "")
	if got := resultOf(t, env2)["run_id"]; env2.Outcome != seal.OutcomeCompleted || got != env.RunID {
		t.Fatalf("run.read with run_id %s read %v: %+v", env.RunID, got, env2)
	}
}
