package pkg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/runxhq/runx/kernel/pkg/schema"
	"github.com/runxhq/runx/sdk/errcode"
)

var methodFields = []string{"description", "inputs", "outputs", "result_from", "effects", "reach", "steps"}

// decodeMethod reads one method. A method's own shape errors are
// method_invalid; its steps report step_invalid.
func decodeMethod(d decoder, name string, n *node) (*Method, error) {
	d = d.with(errcode.MethodInvalid)
	label := fmt.Sprintf("method %q", name)
	f, err := d.object(n, label, methodFields...)
	if err != nil {
		return nil, err
	}
	m := &Method{Name: name}
	if m.Description, err = d.nonEmpty(f, "description", label+" description"); err != nil {
		return nil, err
	}
	if e := f.get("inputs"); e != nil {
		if m.Inputs, err = decodeInputs(d, e, label); err != nil {
			return nil, err
		}
	}
	if e := f.get("outputs"); e != nil {
		if m.Outputs, err = decodeOutputs(d, e, label+" outputs"); err != nil {
			return nil, err
		}
	}
	if m.Effects, err = d.oneOf(f, "effects", label+" effects", "none", "ask", "allow"); err != nil {
		return nil, err
	}
	if m.Reach, err = d.oneOf(f, "reach", label+" reach", "workspace", "inputs"); err != nil {
		return nil, err
	}
	se := f.get("steps")
	if se == nil || se.value.kind != seqNode || len(se.value.items) == 0 {
		return nil, d.fail(n.pos, "%s needs steps: a list of at least one step", label)
	}
	if m.Steps, err = decodeSteps(d, m, se.value); err != nil {
		return nil, err
	}
	if e := f.get("result_from"); e != nil {
		if m.ResultFrom, err = d.strList(e, label+" result_from"); err != nil {
			return nil, err
		}
		for i, id := range m.ResultFrom {
			if m.Step(id) == nil || slices.Index(m.ResultFrom, id) != i {
				return nil, d.fail(e.value.items[i].pos, "%s result_from: %q is not a step of the method or is listed twice", label, id)
			}
		}
	}
	return m, nil
}

func decodeSteps(d decoder, m *Method, list *node) ([]*Step, error) {
	sc := refScope{method: m.Name, inputs: map[string]bool{}, earlier: map[string]bool{}}
	for _, in := range m.Inputs {
		sc.inputs[in.Name] = true
	}
	firstAt := map[string]Position{}
	steps := make([]*Step, 0, len(list.items))
	for i, item := range list.items {
		st, err := decodeStep(d, item, i, sc)
		if err != nil {
			return nil, err
		}
		if first, dup := firstAt[st.ID]; dup {
			return nil, refuseAt(d.file, st.Pos, errcode.StepIDDuplicate,
				"method %q declares step %q twice (first at line %d, column %d)", m.Name, st.ID, first.Line, first.Column)
		}
		firstAt[st.ID] = st.Pos
		sc.earlier[st.ID] = true
		steps = append(steps, st)
	}
	return steps, nil
}

func decodeInputs(d decoder, e *entry, label string) ([]*InputSpec, error) {
	if e.value.kind != mapNode {
		return nil, d.fail(e.value.pos, "%s inputs must be a mapping of input names to declarations, not %s", label, e.value.describe())
	}
	specs := make([]*InputSpec, 0, len(e.value.entries))
	for i := range e.value.entries {
		ie := &e.value.entries[i]
		if !isName(ie.key) {
			return nil, d.fail(ie.keyPos, "%s input name %q must start with a letter or _ and hold only letters, digits, _ and -", label, ie.key)
		}
		spec, err := decodeInputSpec(d, ie, fmt.Sprintf("%s input %q", label, ie.key))
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

func decodeInputSpec(d decoder, ie *entry, label string) (*InputSpec, error) {
	f, err := d.object(ie.value, label, "type", "required", "description", "default", "schema")
	if err != nil {
		return nil, err
	}
	s := &InputSpec{Name: ie.key}
	if !f.has("type") {
		return nil, d.fail(ie.value.pos, "%s needs a type: one of %s", label, strings.Join(inputTypes, ", "))
	}
	if s.Type, err = d.text(f, "type", label+" type"); err != nil {
		return nil, err
	}
	if !slices.Contains(inputTypes, s.Type) && !ValidPacketID(s.Type) {
		return nil, d.fail(f.get("type").value.position(), "%s type must be one of %s, or a packet id (as acme.report.v1), not %q", label, strings.Join(inputTypes, ", "), s.Type)
	}
	if s.Description, err = d.text(f, "description", label+" description"); err != nil {
		return nil, err
	}
	if re := f.get("required"); re != nil {
		if s.Required, err = d.boolean(re, label+" required"); err != nil {
			return nil, err
		}
	}
	if se := f.get("schema"); se != nil {
		if s.Schema, err = d.rawMap(se, label+" schema"); err != nil {
			return nil, err
		}
		if s.compiled, err = schema.CompileValue(s.Schema); err != nil {
			return nil, d.badSchema(se.value.pos, label, err)
		}
	}
	if de := f.get("default"); de != nil {
		if s.Required {
			return nil, d.fail(de.keyPos, "%s is required and has a default; a default already makes it optional", label)
		}
		s.HasDefault = true
		if s.Default, err = s.check(de.value.toValue()); err != nil {
			return nil, d.fail(de.value.pos, "%s default %v", label, err)
		}
	}
	return s, nil
}
