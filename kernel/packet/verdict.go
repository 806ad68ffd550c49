package packet

import (
	"encoding/json"
	"maps"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/verdict"
)

// Verdicts (docs/verdicts.md): runx.criteria.v1 and runx.verdict.v1 are
// the kernel's own packets, their schemas sdk/verdict's. A step that
// returns a runx.verdict.v1 is an evaluator, and runx names it in the
// verdict's evaluator: Stamp.

// Producer names the unit that produced a packet value: the package and
// method its run runs, and the run.
type Producer struct {
	Package string
	Method  string
	Run     string
}

// stampers complete a kernel packet's value with who produced it, by
// packet id: the packets runx gives that meaning to.
var stampers = map[string]func(v any, p Producer) (any, error){}

// Stamp completes v, a value of packet s that p produced, before it is
// checked and kept: a runx.verdict.v1 gets its evaluator, {package,
// method, run}; one that names another evaluator is refused
// (evaluator_mismatch), and a malformed one too (verdict_invalid). A
// runx.criteria.v1 whose revision is not the digest of what it holds is
// refused (criteria_invalid). A value of any other packet is given back
// unchanged. v itself is never changed.
func Stamp(s *Schema, v any, p Producer) (any, error) {
	stamp := stampers[s.ID]
	if stamp == nil || s.From != FromKernel {
		return v, nil
	}
	return stamp(v, p)
}

func stampEvaluator(v any, p Producer) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // not an object: the schema check refuses it
	}
	named := map[string]any{"package": p.Package, "method": p.Method, "run": p.Run}
	if ev, present := m["evaluator"]; present && !sameEvaluator(ev, named) {
		claimed, _ := json.Marshal(ev)
		return nil, contract.Errorf(errcode.EvaluatorMismatch, "the verdict names evaluator %s, and it was returned by package %s, method %s, run %s; runx names a verdict's evaluator itself, so leave it out", short(string(claimed)), p.Package, p.Method, p.Run)
	}
	out := maps.Clone(m)
	out["evaluator"] = named
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, contract.Errorf(errcode.VerdictInvalid, "the verdict is not JSON: %v", err)
	}
	if _, err := verdict.ParseVerdict(raw); err != nil {
		return nil, err
	}
	return out, nil
}

// sameEvaluator: ev names exactly the evaluator named, and nothing more.
func sameEvaluator(ev any, named map[string]any) bool {
	m, ok := ev.(map[string]any)
	if !ok || len(m) != len(named) {
		return false
	}
	for k, want := range named {
		if got, ok := m[k].(string); !ok || got != want {
			return false
		}
	}
	return true
}

func init() {
	for id, doc := range map[string]string{
		verdict.CriteriaSchema: verdict.CriteriaJSONSchema,
		verdict.VerdictSchema:  verdict.VerdictJSONSchema,
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			panic("packet: " + id + ": " + err.Error())
		}
		kernelSchema(id, m)
	}
	stampers[verdict.VerdictSchema] = stampEvaluator
	stampers[verdict.CriteriaSchema] = checkCriteria
}

// checkCriteria holds a criteria set a step returns to its revision: the
// digest of what it holds (criteria_invalid otherwise).
func checkCriteria(v any, _ Producer) (any, error) {
	if _, ok := v.(map[string]any); !ok {
		return v, nil // not an object: the schema check refuses it
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, contract.Errorf(errcode.CriteriaInvalid, "the criteria set is not JSON: %v", err)
	}
	if _, err := verdict.ParseCriteria(raw); err != nil {
		return nil, err
	}
	return v, nil
}
