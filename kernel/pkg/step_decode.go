package pkg

import (
	"fmt"
	"strings"

	"github.com/runxhq/runx/kernel/pkg/schema"
	"github.com/runxhq/runx/sdk/errcode"
)

const (
	maxCount          = 1_000_000 // generous ceiling for counts a package states
	maxTimeoutSeconds = 7 * 24 * 3600
	maxRetryAttempts  = 100
)

var (
	stepKindKeys    = []string{"tool", "operation", "skill", "agent", "ask", "script"}
	operationExtras = []string{"idempotency_key", "approval", "result"}
	stepFields      = append(append([]string{"id", "inputs", "when", "for_each", "concurrency", "outputs",
		"result_as", "effects", "reach", "timeout_seconds", "retry"}, stepKindKeys...), operationExtras...)
)

// decodeStep reads one step. index is its place in the method, for naming a
// step that has no id yet.
func decodeStep(d decoder, n *node, index int, sc refScope) (*Step, error) {
	d = d.with(errcode.StepInvalid)
	label := fmt.Sprintf("step %d of method %q", index+1, sc.method)
	f, err := d.object(n, label, stepFields...)
	if err != nil {
		return nil, err
	}
	st := &Step{Pos: n.pos}
	idEntry := f.get("id")
	if idEntry == nil {
		return nil, d.fail(n.pos, "%s has no id; every step needs one, unique in its method", label)
	}
	if st.ID, err = d.str(idEntry, label+" id"); err != nil {
		return nil, err
	}
	if !isName(st.ID) {
		return nil, d.fail(idEntry.value.pos, "step id %q must start with a letter or _ and hold only letters, digits, _ and -", st.ID)
	}
	label = fmt.Sprintf("step %q", st.ID)

	var kindEntry *entry
	for _, k := range stepKindKeys {
		e := f.get(k)
		if e == nil {
			continue
		}
		if kindEntry != nil {
			return nil, d.fail(e.keyPos, "%s has both %s and %s; a step runs exactly one of %s", label, kindEntry.key, k, strings.Join(stepKindKeys, ", "))
		}
		kindEntry = e
	}
	if kindEntry == nil {
		return nil, d.fail(n.pos, "%s runs nothing; give it one of %s", label, strings.Join(stepKindKeys, ", "))
	}
	if kindEntry.key != "operation" {
		for _, k := range operationExtras {
			if e := f.get(k); e != nil {
				return nil, d.fail(e.keyPos, "%s: %s applies only to operation steps", label, k)
			}
		}
	}

	sc.fanOut = f.has("for_each")
	if err := decodeStepKind(d, st, kindEntry, f, label, sc); err != nil {
		return nil, err
	}
	if err := decodeStepCommon(d, st, f, label, sc); err != nil {
		return nil, err
	}
	return st, nil
}

func decodeStepKind(d decoder, st *Step, e *entry, f fields, label string, sc refScope) error {
	var err error
	switch e.key {
	case "tool":
		st.Kind, st.Tool, err = decodeTool(d, e, label)
	case "operation":
		st.Kind = KindOperation
		st.Operation, err = decodeOperation(d, e, f, label, sc)
	case "skill":
		st.Kind = KindSkill
		st.Skill, err = decodeSkillRef(d, e, label)
	case "agent":
		st.Kind = KindAgent
		st.Agent, err = decodeAgent(d, e, label)
	case "ask":
		st.Kind = KindAsk
		st.Ask, err = decodeAsk(d, e, label)
	case "script":
		st.Kind = KindScript
		st.Script, err = decodeScript(d, e, label)
	}
	return err
}

func decodeStepCommon(d decoder, st *Step, f fields, label string, sc refScope) error {
	var err error
	if e := f.get("inputs"); e != nil {
		if st.Inputs, err = d.rawMap(e, label+" inputs"); err != nil {
			return err
		}
		if err := d.walkRefs(e.value, sc); err != nil {
			return err
		}
	}
	if st.When, err = d.nonEmpty(f, "when", label+" when"); err != nil {
		return err
	}
	if e := f.get("for_each"); e != nil {
		if st.ForEach, err = d.str(e, label+" for_each"); err != nil {
			return err
		}
		if !IsReference(st.ForEach) || strings.HasPrefix(st.ForEach, "$item") {
			return d.fail(e.value.pos, "%s for_each must be a reference to a list ($input... or $steps...)", label)
		}
		if err := sc.checkRef(st.ForEach); err != nil {
			return d.fail(e.value.pos, "%v", err)
		}
	}
	if e := f.get("concurrency"); e != nil {
		if st.ForEach == "" {
			return d.fail(e.keyPos, "%s: concurrency bounds a fan-out and needs for_each", label)
		}
		if st.Concurrency, err = d.positive(e, label+" concurrency", maxCount); err != nil {
			return err
		}
	}
	if e := f.get("outputs"); e != nil {
		if st.Outputs, err = decodeOutputs(d, e, label+" outputs"); err != nil {
			return err
		}
	}
	if e := f.get("result_as"); e != nil {
		if st.ResultAs, err = d.str(e, label+" result_as"); err != nil {
			return err
		}
		if st.Outputs[st.ResultAs] == nil {
			return d.fail(e.value.pos, "%s result_as names %q, which the step's outputs do not declare", label, st.ResultAs)
		}
	}
	if st.Effects, err = d.oneOf(f, "effects", label+" effects", "none", "ask", "allow"); err != nil {
		return err
	}
	if st.Reach, err = d.oneOf(f, "reach", label+" reach", "workspace", "inputs"); err != nil {
		return err
	}
	if e := f.get("timeout_seconds"); e != nil {
		if st.TimeoutSeconds, err = d.positive(e, label+" timeout_seconds", maxTimeoutSeconds); err != nil {
			return err
		}
	}
	if e := f.get("retry"); e != nil {
		if st.Retry, err = decodeRetry(d, e, st, label); err != nil {
			return err
		}
	}
	return nil
}

// decodeRetry reads a retry and refuses it where the step declares it may
// act: sending an effect twice is not a retry runx may decide on its own.
func decodeRetry(d decoder, e *entry, st *Step, label string) (*Retry, error) {
	switch {
	case st.Kind == KindAsk || st.Kind == KindAgent:
		return nil, d.fail(e.keyPos, "%s: retry does not apply to %s steps", label, st.Kind)
	case st.Effects == "ask" || st.Effects == "allow":
		return nil, d.fail(e.keyPos, "%s: retry is only for steps with no effect, and this step declares effects: %s", label, st.Effects)
	case st.Operation != nil && st.Operation.IdempotencyKey != "":
		return nil, d.fail(e.keyPos, "%s: retry is only for steps with no effect; a write with an idempotency_key is retried through its retry request", label)
	}
	f, err := d.object(e.value, label+" retry", "max_attempts", "retry_after_seconds")
	if err != nil {
		return nil, err
	}
	r := &Retry{}
	me := f.get("max_attempts")
	if me == nil {
		return nil, d.fail(e.value.pos, "%s retry needs max_attempts (attempts in all, the first included)", label)
	}
	if r.MaxAttempts, err = d.positive(me, label+" retry max_attempts", maxRetryAttempts); err != nil {
		return nil, err
	}
	if r.MaxAttempts < 2 {
		return nil, d.fail(me.value.pos, "%s retry max_attempts counts the first attempt, so it must be at least 2", label)
	}
	if ae := f.get("retry_after_seconds"); ae != nil {
		if r.RetryAfterSeconds, err = d.positive(ae, label+" retry retry_after_seconds", maxTimeoutSeconds); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// decodeOutputs reads a mapping of output names to their contracts.
func decodeOutputs(d decoder, e *entry, what string) (map[string]*OutputSpec, error) {
	if e.value.kind != mapNode {
		return nil, d.fail(e.value.pos, "%s must be a mapping of output names to contracts, not %s", what, e.value.describe())
	}
	out := make(map[string]*OutputSpec, len(e.value.entries))
	for i := range e.value.entries {
		oe := &e.value.entries[i]
		label := fmt.Sprintf("%s %q", what, oe.key)
		f, err := d.object(oe.value, label, "type", "description", "optional", "packet", "schema")
		if err != nil {
			return nil, err
		}
		spec := &OutputSpec{}
		if pe := f.get("packet"); pe != nil {
			if spec.Packet, err = d.str(pe, label+" packet"); err != nil {
				return nil, err
			}
			if !ValidPacketID(spec.Packet) {
				return nil, d.fail(pe.value.position(), "%s packet must be a packet id (dotted lowercase names ending in a version, as acme.report.v1), not %q", label, spec.Packet)
			}
		}
		if spec.Type, err = d.oneOf(f, "type", label+" type", inputTypes...); err != nil {
			return nil, err
		}
		if spec.Description, err = d.text(f, "description", label+" description"); err != nil {
			return nil, err
		}
		if opt := f.get("optional"); opt != nil {
			if spec.Optional, err = d.boolean(opt, label+" optional"); err != nil {
				return nil, err
			}
		}
		if se := f.get("schema"); se != nil {
			if spec.Schema, err = d.rawMap(se, label+" schema"); err != nil {
				return nil, err
			}
			if spec.compiled, err = schema.CompileValue(spec.Schema); err != nil {
				return nil, d.badSchema(se.value.pos, label, err)
			}
		}
		out[oe.key] = spec
	}
	return out, nil
}
