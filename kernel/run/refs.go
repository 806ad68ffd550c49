package run

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// scope is what a step's input references can see.
type scope struct {
	input map[string]any
	steps map[string]any
	item  any
	runID string
	act   string
}

// stepInputs materialises a step's inputs once. A step that declares none
// receives the method's inputs whole.
func stepInputs(step *pkg.Step, sc *scope) (map[string]any, error) {
	inputs := sc.input
	if step.Inputs != nil {
		var err error
		if inputs, err = materialize(step.ID, step.Inputs, sc); err != nil {
			return nil, err
		}
	}
	return operationInputs(step, sc, inputs)
}

// materialize resolves a step's declared inputs: literals stay as they are,
// whole-value references ($input.x, $steps.id.x, $item.x, $run.id, $run.act)
// are replaced by what they name, and "$$..." is the literal "$...".
func materialize(stepID string, declared map[string]any, sc *scope) (map[string]any, error) {
	out := make(map[string]any, len(declared))
	for name, v := range declared {
		resolved, err := resolveValue(v, sc)
		if err != nil {
			return nil, contract.Errorf(errcode.StepInputUnresolved, "step %s input %s: %v", stepID, name, err)
		}
		if resolved != nil {
			out[name] = resolved
		}
	}
	return out, nil
}

func resolveValue(v any, sc *scope) (any, error) {
	switch t := v.(type) {
	case string:
		return resolveString(t, sc)
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			r, err := resolveValue(e, sc)
			if err != nil {
				return nil, err
			}
			m[k] = r
		}
		return m, nil
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			r, err := resolveValue(e, sc)
			if err != nil {
				return nil, err
			}
			l[i] = r
		}
		return l, nil
	}
	return v, nil
}

func resolveString(s string, sc *scope) (any, error) {
	if !strings.HasPrefix(s, "$") {
		return s, nil
	}
	if strings.HasPrefix(s, "$$") {
		return s[1:], nil
	}
	root, path, _ := strings.Cut(s[1:], ".")
	switch root {
	case "input":
		return lookup(sc.input, path, s)
	case "steps":
		id, rest, _ := strings.Cut(path, ".")
		out, ok := sc.steps[id]
		if !ok {
			return nil, fmt.Errorf("%s names step %q, which has not produced an output", s, id)
		}
		return lookup(out, rest, s)
	case "item":
		return lookup(sc.item, path, s)
	case "run":
		switch path {
		case "id":
			return sc.runID, nil
		case "act":
			return sc.act, nil
		}
	}
	return nil, fmt.Errorf("%s is not a reference runx knows ($input, $steps, $item, $run.id, $run.act; write $$ for a literal $)", s)
}

// lookup walks a dotted path through objects and arrays. An absent field of
// an object is nil (an optional input left out); walking through a missing or
// non-container value is an error naming the reference.
func lookup(v any, path, ref string) (any, error) {
	if path == "" {
		return v, nil
	}
	for _, part := range strings.Split(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("%s: index %q is outside the array of %d items", ref, part, len(c))
			}
			v = c[i]
		case nil:
			return nil, nil
		default:
			return nil, fmt.Errorf("%s: %q cannot be read from a %T", ref, part, v)
		}
	}
	return v, nil
}
