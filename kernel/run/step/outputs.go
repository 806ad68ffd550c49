package step

import (
	"fmt"
	"math"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/packet"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// SelectResult picks the run's public result: the outputs of the result
// producers (default: the last step) that succeeded, each under result_as
// when it names one, narrowed to the method's declared outputs.
func SelectResult(p *pkg.Package, m *pkg.Method, outputs map[string]any, status map[string]contract.StepStatus) (any, error) {
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
					return nil, contract.Errorf(errcode.ResultKeyCollision, "result producers both emitted %q", k)
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
			return nil, contract.Errorf(errcode.ResultContractViolated, "method %s declares output %s, which its result lacks", m.Name, name)
		}
		if !typeMatches(spec.Type, v) {
			return nil, contract.Errorf(errcode.ResultContractViolated, "method %s output %s is %s, not %s", m.Name, name, Describe(v), spec.Type)
		}
		if err := spec.CheckSchema(v); err != nil {
			return nil, contract.Errorf(errcode.ResultContractViolated, "method %s output %s %v", m.Name, name, err)
		}
		if err := checkPacket(p, spec, v, "method "+m.Name+" output "+name); err != nil {
			return nil, err
		}
		narrowed[name] = v
	}
	return narrowed, nil
}

// checkPacket holds a value to the packet its output names, if any.
func checkPacket(p *pkg.Package, spec *pkg.OutputSpec, v any, what string) error {
	if spec.Packet == "" {
		return nil
	}
	reg, err := packet.ForPackage(p)
	if err != nil {
		return err
	}
	s, err := reg.Require(spec.Packet, what)
	if err != nil {
		return err
	}
	if err := s.Check(v); err != nil {
		return contract.Errorf(errcode.PacketInvalid, "%s: %s", what, err.Error())
	}
	return nil
}

// CheckOutputs holds a step's output to its declared contract and returns
// what the step hands on: only the declared fields. A field the step did not
// declare is dropped here, so it never reaches a later step, a result or a
// key-collision check it was never part of.
func CheckOutputs(stepID string, declared map[string]*pkg.OutputSpec, out any) (any, error) {
	if len(declared) == 0 {
		return out, nil
	}
	obj, ok := out.(map[string]any)
	if !ok {
		return nil, contract.Errorf(errcode.StepOutputInvalid, "step %s declares outputs but produced %s", stepID, Describe(out))
	}
	bound := make(map[string]any, len(declared))
	for name, spec := range declared {
		v, present := obj[name]
		if !present {
			if spec.Optional {
				continue
			}
			return nil, contract.Errorf(errcode.StepOutputMissing, "step %s did not produce its declared output %s", stepID, name)
		}
		if !typeMatches(spec.Type, v) {
			return nil, contract.Errorf(errcode.StepOutputInvalid, "step %s output %s is %s, not %s", stepID, name, Describe(v), spec.Type)
		}
		if err := spec.CheckSchema(v); err != nil {
			return nil, contract.Errorf(errcode.StepOutputInvalid, "step %s output %s %v", stepID, name, err)
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

func Describe(v any) string {
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
