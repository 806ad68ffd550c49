package guard

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// guards caches compiled `when:` programs by expression: compiled and
// type-checked once, at preparation, then evaluated per run.
var guards sync.Map // string -> cel.Program

var guardEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("input", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("steps", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("run", cel.MapType(cel.StringType, cel.DynType)),
	)
})

// Compile compiles and type-checks a guard; it must be a boolean.
func Compile(step *pkg.Step) (cel.Program, error) {
	if p, ok := guards.Load(step.When); ok {
		return p.(cel.Program), nil
	}
	env, err := guardEnv()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(step.When)
	if iss.Err() != nil {
		return nil, contract.Errorf(errcode.GuardInvalid, "step %s: when %q does not compile: %v", step.ID, step.When, iss.Err())
	}
	if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
		return nil, contract.Errorf(errcode.GuardInvalid, "step %s: when %q is a %s, not a boolean", step.ID, step.When, ast.OutputType())
	}
	prg, err := env.Program(ast)
	if err != nil {
		return nil, contract.Errorf(errcode.GuardInvalid, "step %s: when %q: %v", step.ID, step.When, err)
	}
	guards.Store(step.When, prg)
	return prg, nil
}

// Vars are what a guard reads: the run's input, the outputs of the steps
// so far, and the run's id and act.
type Vars struct {
	Input map[string]any
	Steps map[string]any
	RunID string
	Act   string
}

// Eval evaluates a step's `when:` over input, steps and run {id, act}.
func Eval(step *pkg.Step, v Vars) (bool, error) {
	prg, err := Compile(step)
	if err != nil {
		return false, err
	}
	out, _, err := prg.Eval(map[string]any{
		"input": v.Input,
		"steps": v.Steps,
		"run":   map[string]any{"id": v.RunID, "act": v.Act},
	})
	if err != nil {
		return false, contract.Errorf(errcode.GuardFailed, "step %s: when %q could not be evaluated: %v", step.ID, step.When, err)
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, contract.Errorf(errcode.GuardFailed, "step %s: when %q gave %v, not a boolean", step.ID, step.When, fmt.Sprint(out.Value()))
	}
	return b, nil
}
