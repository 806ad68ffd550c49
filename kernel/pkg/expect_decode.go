package pkg

import (
	"fmt"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/sdk/errcode"
)

// outcomeList names every outcome a run can seal with, for a refusal.
func outcomeList() string {
	names := make([]string, len(seal.RunOutcomes))
	for i, o := range seal.RunOutcomes {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}

// testStatuses are the statuses a test's run can end in: any but stopped,
// which only a signal makes.
var testStatuses = []string{string(contract.StatusSealed), string(contract.StatusNeedsAgent), string(contract.StatusNeedsApproval)}

func decodeExpectation(d decoder, e *entry) (*Expectation, error) {
	f, err := d.object(e.value, "expect", "status", "outcome", "output", "absent", "receipt", "steps", "step_outputs", "http_request_counts")
	if err != nil {
		return nil, err
	}
	x := &Expectation{}
	status, err := d.oneOf(f, "status", "expect status", testStatuses...)
	if err != nil {
		return nil, err
	}
	x.Status = contract.RunStatus(status)
	if x.Status == "" {
		return nil, d.fail(e.value.pos, "expect needs status: how the run must end (sealed, needs_agent, needs_approval, ...)")
	}
	outcome, err := d.nonEmpty(f, "outcome", "expect outcome")
	if err != nil {
		return nil, err
	}
	x.Outcome = seal.Outcome(outcome)
	if x.Outcome != "" && !x.Outcome.RunOutcome() {
		return nil, refuseAt(d.file, f.get("outcome").value.position(), errcode.TestOutcomeUnknown,
			"expect outcome must be one of %s, not %q", outcomeList(), outcome)
	}
	if oe := f.get("output"); oe != nil {
		if x.Output, err = decodeOutputExpectation(d, oe, "expect output"); err != nil {
			return nil, err
		}
	}
	if ae := f.get("absent"); ae != nil {
		if x.Absent, err = d.strList(ae, "expect absent"); err != nil {
			return nil, err
		}
		for i, p := range x.Absent {
			if !jsonvalue.ValidPointer(p) || p == "" {
				return nil, d.fail(ae.value.items[i].pos, "expect absent: %q is not a JSON pointer to a field (RFC 6901, like /a/b)", p)
			}
		}
	}
	if re := f.get("receipt"); re != nil {
		if x.Receipt, err = d.rawMap(re, "expect receipt"); err != nil {
			return nil, err
		}
	}
	if se := f.get("steps"); se != nil {
		if x.Steps, err = d.strList(se, "expect steps"); err != nil {
			return nil, err
		}
	}
	if so := f.get("step_outputs"); so != nil {
		if so.value.kind != mapNode {
			return nil, d.fail(so.value.pos, "expect step_outputs must map step ids to subset or exact")
		}
		x.StepOutputs = make(map[string]*OutputExpectation, len(so.value.entries))
		for i := range so.value.entries {
			ve := &so.value.entries[i]
			if x.StepOutputs[ve.key], err = decodeOutputExpectation(d, ve, fmt.Sprintf("expect step_outputs %q", ve.key)); err != nil {
				return nil, err
			}
		}
	}
	if ce := f.get("http_request_counts"); ce != nil {
		if ce.value.kind != seqNode {
			return nil, d.fail(ce.value.pos, "expect http_request_counts must be a list of counts, one per declared providers.http exchange")
		}
		x.HTTPRequestCounts = []int{}
		for _, it := range ce.value.items {
			n, ok := it.value.(int64)
			if it.kind != scalarNode || !ok || n < 0 {
				return nil, d.fail(it.pos, "expect http_request_counts must hold whole numbers, 0 or more")
			}
			x.HTTPRequestCounts = append(x.HTTPRequestCounts, int(n))
		}
	}
	return x, nil
}

// decodeOutputExpectation reads {subset: v} or {exact: v}: exactly one, so a
// test says which comparison it means.
func decodeOutputExpectation(d decoder, e *entry, label string) (*OutputExpectation, error) {
	f, err := d.object(e.value, label, CompareSubset, CompareExact)
	if err != nil {
		return nil, err
	}
	switch {
	case f.has(CompareSubset) && f.has(CompareExact):
		return nil, d.fail(e.value.pos, "%s has both subset and exact; choose one comparison", label)
	case f.has(CompareSubset):
		return &OutputExpectation{Mode: CompareSubset, Value: f.get(CompareSubset).value.toValue()}, nil
	case f.has(CompareExact):
		return &OutputExpectation{Mode: CompareExact, Value: f.get(CompareExact).value.toValue()}, nil
	}
	return nil, d.fail(e.value.pos, "%s needs subset or exact (exact: null expects a null)", label)
}
