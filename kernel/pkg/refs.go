package pkg

import (
	"fmt"
	"strings"
)

// refScope is what references in one step may name. Steps run in declared
// order, so a step can read only the steps before it; $item exists only in a
// fan-out.
type refScope struct {
	method  string
	inputs  map[string]bool
	earlier map[string]bool
	fanOut  bool
}

// IsReference reports whether a raw input value is a reference rather than a
// literal: a string starting with one '$' ("$$..." is an escaped literal).
func IsReference(v any) bool {
	s, ok := v.(string)
	return ok && strings.HasPrefix(s, "$") && !strings.HasPrefix(s, "$$")
}

// checkRef validates one reference against the grammar of docs/architecture.md
// ("A package"):
// $input[.path], $steps.<id>[.path], $item[.path], $run.act, $run.id.
func (sc refScope) checkRef(ref string) error {
	root, path, dotted := strings.Cut(ref, ".")
	if dotted && (path == "" || path[0] == '.' || path[len(path)-1] == '.' || strings.Contains(path, "..")) {
		return fmt.Errorf("reference %s has an empty path segment", ref)
	}
	switch root {
	case "$input":
		if path == "" {
			return nil
		}
		name, _, _ := strings.Cut(path, ".")
		if !sc.inputs[name] {
			return fmt.Errorf("reference %s reads input %q, which method %q does not declare", ref, name, sc.method)
		}
		return nil
	case "$steps":
		id, _, _ := strings.Cut(path, ".")
		if id == "" {
			return fmt.Errorf("reference %s must name a step: $steps.<id>[.path]", ref)
		}
		if !sc.earlier[id] {
			return fmt.Errorf("reference %s reads step %q, which is not declared before this step in method %q", ref, id, sc.method)
		}
		return nil
	case "$item":
		if !sc.fanOut {
			return fmt.Errorf("reference %s is only meaningful in a step with for_each", ref)
		}
		return nil
	case "$run":
		if path == "act" || path == "id" {
			return nil
		}
		return fmt.Errorf("reference %s is unknown; a run offers $run.act and $run.id", ref)
	}
	return fmt.Errorf("reference %s is unknown; references start with $input, $steps, $item or $run (write a literal $ as $$)", ref)
}

// walkRefs checks every reference inside a raw value, at any depth.
func (d decoder) walkRefs(n *node, sc refScope) error {
	switch n.kind {
	case mapNode:
		for _, e := range n.entries {
			if err := d.walkRefs(e.value, sc); err != nil {
				return err
			}
		}
	case seqNode:
		for _, it := range n.items {
			if err := d.walkRefs(it, sc); err != nil {
				return err
			}
		}
	default:
		if IsReference(n.value) {
			if err := sc.checkRef(n.value.(string)); err != nil {
				return d.fail(n.pos, "%v", err)
			}
		}
	}
	return nil
}
