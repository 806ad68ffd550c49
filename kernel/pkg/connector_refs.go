package pkg

import (
	"fmt"
	"strings"
)

// Readbacks and the references connector values may hold.

func decodeReadback(d decoder, n *node, label string) (*Readback, error) {
	f, err := d.object(n, label, "operation", "inputs", "confirms")
	if err != nil {
		return nil, err
	}
	rb := &Readback{}
	if rb.Operation, err = d.nonEmpty(f, "operation", label+" operation"); err != nil {
		return nil, err
	}
	if rb.Operation == "" {
		return nil, d.fail(n.pos, "%s needs the read operation it calls", label)
	}
	if ie := f.get("inputs"); ie != nil {
		if rb.Inputs, err = d.stringMap(ie, label+" inputs"); err != nil {
			return nil, err
		}
	}
	ce := f.get("confirms")
	if ce == nil {
		return nil, d.fail(n.pos, "%s needs confirms: the read's fields that must equal the write's identity", label)
	}
	if rb.Confirms, err = d.stringMap(ce, label+" confirms"); err != nil {
		return nil, err
	}
	if len(rb.Confirms) == 0 {
		return nil, d.fail(ce.value.pos, "%s confirms must name at least one field", label)
	}
	return rb, nil
}

// checkReadbacks ties each readback to a read operation of the same
// connector, with references the write can resolve.
func checkReadbacks(d decoder, c *Connector, op *ConnectorOperation, e *entry) error {
	for _, rb := range op.Readbacks {
		read := c.Operation(rb.Operation)
		if read == nil || read.Verb != VerbRead {
			return d.fail(e.value.pos, "operation %s reads back with %q, which is no read operation of connector %s", op.Name, rb.Operation, c.ID)
		}
		for k, v := range rb.Inputs {
			if read.Input(k) == nil {
				return d.fail(e.value.pos, "operation %s readback %s takes no input %q", op.Name, rb.Operation, k)
			}
			if err := checkReadbackRef(op, v); err != nil {
				return d.fail(e.value.pos, "operation %s readback input %s %v", op.Name, k, err)
			}
		}
		for k, v := range rb.Confirms {
			if err := checkReadbackRef(op, v); err != nil {
				return d.fail(e.value.pos, "operation %s readback confirms %s %v", op.Name, k, err)
			}
		}
	}
	return nil
}

// checkTemplate checks that each {name} of a template names a declared input.
func checkTemplate(op *ConnectorOperation, tmpl string) error {
	for _, m := range pathParam.FindAllStringSubmatch(tmpl, -1) {
		if op.Input(m[1]) == nil {
			return fmt.Errorf("%q names {%s}, which is no declared input", tmpl, m[1])
		}
	}
	if strings.Count(tmpl, "{") != strings.Count(tmpl, "}") {
		return fmt.Errorf("%q has an unbalanced brace", tmpl)
	}
	return nil
}

// checkInputRef checks a request value: a literal, $$-escaped literal, or
// $input.<declared input>.
func checkInputRef(op *ConnectorOperation, v string) error {
	if !strings.HasPrefix(v, "$") || strings.HasPrefix(v, "$$") {
		return nil
	}
	name, ok := strings.CutPrefix(v, "$input.")
	if !ok || op.Input(name) == nil {
		return fmt.Errorf("%q must be a literal or $input.<declared input>", v)
	}
	return nil
}

func walkBodyRefs(op *ConnectorOperation, v any) error {
	switch x := v.(type) {
	case string:
		return checkInputRef(op, x)
	case map[string]any:
		for _, c := range x {
			if err := walkBodyRefs(op, c); err != nil {
				return err
			}
		}
	case []any:
		for _, c := range x {
			if err := walkBodyRefs(op, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkReadbackRef checks a readback value: a literal, $key (the provider
// key), $input.<declared input>, or $response.<path> of the write's answer.
func checkReadbackRef(op *ConnectorOperation, v string) error {
	if v == "$key" || strings.HasPrefix(v, "$response.") && len(v) > len("$response.") {
		return nil
	}
	return checkInputRef(op, v)
}
