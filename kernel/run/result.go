package run

import (
	"fmt"
	"math"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
)

// selectResult picks the run's public result: the outputs of the result_from
// steps (default: the last step), narrowed to the method's declared outputs
// when it declares any.
func selectResult(m *pkg.Method, outputs map[string]any) (any, error) {
	producers := m.ResultSteps()
	var result any
	if len(producers) == 1 {
		result = outputs[producers[0]]
	} else {
		merged := map[string]any{}
		for _, id := range producers {
			obj, _ := outputs[id].(map[string]any)
			for k, v := range obj {
				if _, dup := merged[k]; dup {
					return nil, contract.Errorf("result_key_collision", "steps selected by result_from both produce %q", k)
				}
				merged[k] = v
			}
		}
		result = merged
	}
	if len(m.Outputs) == 0 {
		return result, nil
	}
	obj, ok := result.(map[string]any)
	if !ok {
		return nil, contract.Errorf("result_contract_violated", "method %s declares outputs but its result is not an object", m.Name)
	}
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
			return nil, contract.Errorf("result_contract_violated", "method %s output %s is not of type %s", m.Name, name, spec.Type)
		}
		narrowed[name] = v
	}
	return narrowed, nil
}

// checkOutputs holds a step's output to its declared contract.
func checkOutputs(stepID string, declared map[string]*pkg.OutputSpec, out any) error {
	if len(declared) == 0 {
		return nil
	}
	obj, ok := out.(map[string]any)
	if !ok {
		return contract.Errorf("step_output_invalid", "step %s declares outputs but produced %s", stepID, describe(out))
	}
	for name, spec := range declared {
		v, present := obj[name]
		if !present {
			if spec.Optional {
				continue
			}
			return contract.Errorf("step_output_missing", "step %s did not produce its declared output %s", stepID, name)
		}
		if !typeMatches(spec.Type, v) {
			return contract.Errorf("step_output_invalid", "step %s output %s is %s, not %s", stepID, name, describe(v), spec.Type)
		}
	}
	return nil
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
