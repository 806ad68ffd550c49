package run

import (
	"encoding/json"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// childContracts holds each skill step to the child method it names,
// before any step runs: every input it passes is one the child declares,
// every required child input is given, and a value whose type is known now
// (a literal, a method input, a producer's declared output) is of the type
// the child declares.
func (pr *preparation) childContracts(p *pkg.Package, m *pkg.Method) error {
	e := pr.e
	if e.Resolver == nil {
		return nil
	}
	for _, s := range m.Steps {
		if s.Kind != pkg.KindSkill || s.ForEach != "" || s.Inputs == nil {
			continue
		}
		cp, methodName, err := e.Resolver.Resolve(p.Dir, s.Skill)
		if err != nil {
			continue // refused with its own code when the step runs
		}
		cm, err := cp.SelectMethod(methodName)
		if err != nil {
			continue
		}
		for name, v := range s.Inputs {
			spec := cm.Input(name)
			if spec == nil {
				return contract.Errorf(errcode.StepInputUnknown, "step %s passes input %s, which %s#%s does not declare", s.ID, name, cp.Name, cm.Name)
			}
			if got := staticType(m, v); got != "" && !compatible(spec.Type, got) {
				return contract.Errorf(errcode.StepInputTypeMismatch, "step %s input %s is %s, but %s#%s declares %s", s.ID, name, got, cp.Name, cm.Name, spec.Type)
			}
		}
		for _, spec := range cm.Inputs {
			if _, given := s.Inputs[spec.Name]; spec.Required && !spec.HasDefault && !given {
				return contract.Errorf(errcode.StepInputMissing, "step %s does not pass %s, which %s#%s requires", s.ID, spec.Name, cp.Name, cm.Name)
			}
		}
	}
	return nil
}

// staticType is the type a step input has before the run, or "" when only
// the run can tell.
func staticType(m *pkg.Method, v any) string {
	if s, ok := v.(string); ok && pkg.IsReference(s) {
		root, path, _ := strings.Cut(s[1:], ".")
		switch root {
		case "input":
			if !strings.Contains(path, ".") && path != "" {
				if in := m.Input(path); in != nil {
					return in.Type
				}
			}
		case "steps":
			id, rest, _ := strings.Cut(path, ".")
			if producer := m.Step(id); producer != nil && rest != "" && !strings.Contains(rest, ".") {
				if out := producer.Outputs[rest]; out != nil {
					return out.Type
				}
			}
		}
		return ""
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var normal any
	if json.Unmarshal(raw, &normal) != nil {
		return ""
	}
	switch t := normal.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if t == float64(int64(t)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return ""
}

// compatible reports whether a value of type got may fill an input declared
// as want.
func compatible(want, got string) bool {
	switch {
	case want == "" || want == "json" || got == "json" || want == got:
		return true
	case want == "number" && got == "integer":
		return true
	}
	return false
}
