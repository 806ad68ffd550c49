package run

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
)

// Step kinds this runx executes.
var runnableKinds = map[pkg.StepKind]bool{
	pkg.KindTool: true, pkg.KindModule: true, pkg.KindCommand: true,
	pkg.KindSkill: true, pkg.KindAgent: true, pkg.KindAsk: true, pkg.KindOperation: true, pkg.KindScript: true,
}

// prepare checks a method before any of its steps runs: every step is of a
// kind this runx executes and resolves to what it names (a tool some plugin
// describes, a connector operation, a child skill, each tool, operation and
// skill a turn's or a script's calls list), every guard compiles, every
// result producer declares its outputs, and no two producers emit the same
// key unless their guards are exclusive. A step a guard may skip is held
// to all of it: a mistake in a branch that seldom runs is still a mistake.
func (e *engine) prepare(ctx context.Context, p *pkg.Package, m *pkg.Method) error {
	return e.prepareClosure(ctx, p, m, map[string]bool{}, 0)
}

// prepareClosure prepares a method and, before any step runs, every method
// its skill steps and call lists name, so a child's key collision,
// unsupported field or unresolvable ref is refused before the parent's
// first effect rather than after it.
func (e *engine) prepareClosure(ctx context.Context, p *pkg.Package, m *pkg.Method, seen map[string]bool, depth int) error {
	key := p.Dir + "#" + m.Name
	if seen[key] || depth > TreeMaxDepth {
		return nil
	}
	seen[key] = true
	wrap := func(err error) error {
		if depth == 0 {
			return err
		}
		return contract.Errorf(contract.CodeOf(err), "child skill %s#%s: %s", p.Name, m.Name, err.Error())
	}
	if err := e.prepareMethod(ctx, p, m); err != nil {
		return wrap(err)
	}
	if e.Resolver == nil {
		return nil
	}
	for _, sr := range methodSkillRefs(m) {
		cp, methodName, err := e.Resolver.Resolve(p.Dir, sr.ref)
		if err == nil {
			var cm *pkg.Method
			if cm, err = cp.SelectMethod(methodName); err == nil {
				err = e.prepareClosure(ctx, cp, cm, seen, depth+1)
				if err != nil {
					return err
				}
				continue
			}
		}
		return wrap(contract.Errorf(contract.CodeOf(err), "step %s names skill %s, which does not resolve: %s; no step was started", sr.step, sr.ref, err.Error()))
	}
	return nil
}

// stepSkillRef is a skill ref a method names, with the step naming it.
type stepSkillRef struct{ step, ref string }

// methodSkillRefs are the skill refs m names: its skill steps', and the
// skills each turn's and script's calls list.
func methodSkillRefs(m *pkg.Method) []stepSkillRef {
	var out []stepSkillRef
	for _, s := range m.Steps {
		if s.Kind == pkg.KindSkill {
			out = append(out, stepSkillRef{s.ID, s.Skill})
		}
		for _, c := range []*pkg.Calls{agentCalls(s), scriptCalls(s)} {
			if c != nil {
				for _, ref := range c.Skills {
					out = append(out, stepSkillRef{s.ID, ref})
				}
			}
		}
	}
	return out
}

// prepareMethod checks one method's own steps.
func (e *engine) prepareMethod(ctx context.Context, p *pkg.Package, m *pkg.Method) error {
	for _, s := range m.Steps {
		if !runnableKinds[s.Kind] {
			return contract.Errorf("step_kind_unsupported", "step %s is a %s step, which this runx (%s) does not run yet; no step was started", s.ID, s.Kind, e.RunxVersion)
		}
		if err := e.resolveStep(ctx, p, s); err != nil {
			return err
		}
		if s.ForEach != "" && (s.Kind == pkg.KindAgent || s.Kind == pkg.KindAsk) {
			return contract.Errorf("for_each_unsupported", "step %s: for_each fans out tools, modules, commands and skills, not %s steps", s.ID, s.Kind)
		}
		if s.When != "" {
			if _, err := compileGuard(s); err != nil {
				return err
			}
		}
	}
	if err := e.checkChildContracts(p, m); err != nil {
		return err
	}
	for _, id := range m.ResultFrom {
		s := m.Step(id)
		if s == nil {
			return contract.Errorf("result_from_unknown", "method %s: result_from names %q, which is not a step", m.Name, id)
		}
		if len(m.ResultFrom) == 1 {
			if !e.hasResultContract(ctx, p, s, 0) {
				return contract.Errorf(CodeResultContractMissing, "method %s: result producer %s declares no output contract (no outputs, no result_as, and what it runs declares none); declare the step's outputs", m.Name, id)
			}
			continue
		}
		if len(s.Outputs) == 0 && s.ResultAs == "" {
			return contract.Errorf(CodeResultContractMissing, "method %s: result producer %s declares no outputs; declare the step's outputs", m.Name, id)
		}
	}
	if len(m.ResultFrom) > 1 {
		owners := map[string][]string{}
		for _, id := range m.ResultFrom {
			s := m.Step(id)
			for key := range producedKeys(s) {
				// Producers of one key must be branches that can never both
				// run: guards runx proves exclusive (guardsExclusive).
				for _, other := range owners[key] {
					if !guardsExclusive(s.When, m.Step(other).When) {
						return contract.Errorf("result_key_collision", "method %s: result producers %s and %s both emit %q, and their guards are not provably exclusive (write them as x and !x, or x == a and x == b)", m.Name, other, id, key)
					}
				}
				owners[key] = append(owners[key], id)
			}
		}
	}
	return nil
}

func producedKeys(s *pkg.Step) map[string]bool {
	if s.ResultAs != "" {
		return map[string]bool{s.ResultAs: true}
	}
	keys := map[string]bool{}
	for k := range s.Outputs {
		keys[k] = true
	}
	return keys
}

// selectResult picks the run's public result: the outputs of the result
// producers (default: the last step) that succeeded, each under result_as
// when it names one, narrowed to the method's declared outputs.
func selectResult(m *pkg.Method, outputs map[string]any, status map[string]contract.StepStatus) (any, error) {
	producers := m.ResultSteps()
	var result any
	if len(producers) == 1 {
		if status[producers[0]] == contract.StepSuccess {
			result = outputs[producers[0]]
		}
	} else {
		merged := map[string]any{}
		for _, id := range producers {
			if status[id] != contract.StepSuccess {
				continue
			}
			produced, _ := outputs[id].(map[string]any)
			for k, v := range produced {
				if _, dup := merged[k]; dup {
					return nil, contract.Errorf("result_key_collision", "result producers both emitted %q", k)
				}
				merged[k] = v
			}
		}
		result = merged
	}
	if len(m.Outputs) == 0 {
		return result, nil
	}
	obj, _ := result.(map[string]any)
	narrowed := map[string]any{}
	for name, spec := range m.Outputs {
		v, present := obj[name]
		if !present {
			if spec.Optional {
				continue
			}
			return nil, contract.Errorf("result_contract_violated", "method %s declares output %s, which its result lacks", m.Name, name)
		}
		if !typeMatches(spec.Type, v) {
			return nil, contract.Errorf("result_contract_violated", "method %s output %s is %s, not %s", m.Name, name, describe(v), spec.Type)
		}
		if err := spec.CheckSchema(v); err != nil {
			return nil, contract.Errorf("result_contract_violated", "method %s output %s %v", m.Name, name, err)
		}
		narrowed[name] = v
	}
	return narrowed, nil
}

// checkOutputs holds a step's output to its declared contract and returns
// what the step hands on: only the declared fields. A field the step did not
// declare is dropped here, so it never reaches a later step, a result or a
// key-collision check it was never part of.
func checkOutputs(stepID string, declared map[string]*pkg.OutputSpec, out any) (any, error) {
	if len(declared) == 0 {
		return out, nil
	}
	obj, ok := out.(map[string]any)
	if !ok {
		return nil, contract.Errorf("step_output_invalid", "step %s declares outputs but produced %s", stepID, describe(out))
	}
	bound := make(map[string]any, len(declared))
	for name, spec := range declared {
		v, present := obj[name]
		if !present {
			if spec.Optional {
				continue
			}
			return nil, contract.Errorf("step_output_missing", "step %s did not produce its declared output %s", stepID, name)
		}
		if !typeMatches(spec.Type, v) {
			return nil, contract.Errorf("step_output_invalid", "step %s output %s is %s, not %s", stepID, name, describe(v), spec.Type)
		}
		if err := spec.CheckSchema(v); err != nil {
			return nil, contract.Errorf("step_output_invalid", "step %s output %s %v", stepID, name, err)
		}
		bound[name] = v
	}
	return bound, nil
}

func typeMatches(t string, v any) bool {
	switch t {
	case "", "json", "any":
		return true
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	}
	return false
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

func parseTime(s string, e *engine) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return e.Clock()
	}
	return t
}
