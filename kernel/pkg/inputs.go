package pkg

import (
	"strings"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/sdk/errcode"
)

// InputSource is how a caller supplied a method's inputs (docs/cli.md, runx
// skill).
type InputSource struct {
	Pairs       []string // -i name=value: typed by the declaration
	JSONPairs   []string // --input-json name=<json>
	Document    []byte   // --inputs <file|->: one JSON object
	HasDocument bool     // a document was given, even an empty one (a non-nil Document counts too)
}

// BindInputs checks the supplied inputs against m's declarations and returns
// the bound values: declared inputs only, defaults applied, each in its
// type's Go shape (string, int64, float64, bool, map[string]any, []any, or
// any JSON value for json). Values are never quoted in a refusal.
//
// A null is a value only where the input accepts one (type json, or a schema
// admitting null); elsewhere it counts as absent, so the default applies or a
// required input is missing.
func BindInputs(m *Method, src InputSource) (map[string]any, error) {
	supplied, err := supplied(m, src)
	if err != nil {
		return nil, err
	}
	bound := make(map[string]any, len(m.Inputs))
	for _, spec := range m.Inputs {
		v, present := supplied[spec.Name]
		if present && v == nil && !spec.AcceptsNull() {
			present = false
		}
		if !present {
			switch {
			case spec.HasDefault:
				v = jsonvalue.Clone(spec.Default)
			case spec.Required:
				return nil, refuse(errcode.InputMissing, "method %q needs input %q%s", m.Name, spec.Name, describeInput(spec))
			default:
				continue
			}
		}
		checked, err := spec.check(v)
		if err != nil {
			return nil, refuse(errcode.InputTypeInvalid, "input %q %v", spec.Name, err)
		}
		bound[spec.Name] = checked
	}
	return bound, nil
}

// supplied gathers what the caller gave, by name, before defaults.
func supplied(m *Method, src InputSource) (map[string]any, error) {
	if src.HasDocument || src.Document != nil {
		if len(src.Pairs) > 0 || len(src.JSONPairs) > 0 {
			return nil, refuse(errcode.InputsExclusive, "--inputs gives the whole input object, so it cannot be combined with -i or --input-json")
		}
		doc, err := decodeInputsDocument(src.Document)
		if err != nil {
			return nil, err
		}
		for name := range doc {
			if m.Input(name) == nil {
				// The key is part of the rejected document, so it is not quoted.
				return nil, refuse(errcode.InputUnknown, "the inputs document holds an input method %q does not declare; it declares %s", m.Name, declaredList(m))
			}
		}
		return doc, nil
	}
	out := map[string]any{}
	for _, pair := range src.Pairs {
		name, raw, err := splitPair("-i", pair)
		if err != nil {
			return nil, err
		}
		spec, err := lookupInput(m, name, out)
		if err != nil {
			return nil, err
		}
		if spec.Type == TypeString {
			out[name] = raw
			continue
		}
		v, err := jsonvalue.Decode([]byte(raw))
		if err != nil {
			return nil, refuse(errcode.InputTypeInvalid, "input %q is %s, so -i %s=<value> is read as JSON, and its value is %v", name, typeNoun(spec.Type), name, err)
		}
		out[name] = v
	}
	for _, pair := range src.JSONPairs {
		name, raw, err := splitPair("--input-json", pair)
		if err != nil {
			return nil, err
		}
		if _, err := lookupInput(m, name, out); err != nil {
			return nil, err
		}
		v, err := jsonvalue.Decode([]byte(raw))
		if err != nil {
			return nil, refuse(errcode.InputTypeInvalid, "--input-json %s=<json>: the value is %v", name, err)
		}
		out[name] = v
	}
	return out, nil
}

func splitPair(flag, pair string) (name, value string, err error) {
	name, value, ok := strings.Cut(pair, "=")
	if !ok || name == "" {
		return "", "", refuse(errcode.InputPairInvalid, "%s takes name=value", flag)
	}
	return name, value, nil
}

func lookupInput(m *Method, name string, seen map[string]any) (*InputSpec, error) {
	spec := m.Input(name)
	if spec == nil {
		return nil, refuse(errcode.InputUnknown, "method %q has no input %q; it declares %s", m.Name, name, declaredList(m))
	}
	if _, dup := seen[name]; dup {
		return nil, refuse(errcode.InputDuplicate, "input %q is given twice", name)
	}
	return spec, nil
}

func declaredList(m *Method) string {
	if len(m.Inputs) == 0 {
		return "no inputs"
	}
	names := make([]string, len(m.Inputs))
	for i, in := range m.Inputs {
		names[i] = in.Name
	}
	return strings.Join(names, ", ")
}

func describeInput(spec *InputSpec) string {
	if spec.Description == "" {
		return " (" + spec.Type + ")"
	}
	return " (" + spec.Type + "): " + spec.Description
}
