package packet

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/verdict"
)

func verdictValue(t *testing.T, extra map[string]any) map[string]any {
	t.Helper()
	set, err := verdict.NewCriteria([]verdict.CheckSpec{{ID: "tests_pass"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(verdict.Verdict{Schema: verdict.VerdictSchema, Subject: canon.DigestBytes([]byte("s")), Criteria: set.Revision,
		Checks: []verdict.Answer{{ID: "tests_pass", Status: verdict.Met}}})
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// A verdict a step returns is stamped with its evaluator, {package,
// method, run}, then meets its packet; a verdict that names the same
// evaluator passes, one that names another fails, and so does a
// malformed one. Other packets pass unchanged.
func TestStampNamesTheEvaluator(t *testing.T) {
	reg := NewRegistry()
	s, ok := reg.Lookup(verdict.VerdictSchema)
	if !ok {
		t.Fatal("runx.verdict.v1 is not a kernel packet")
	}
	if _, ok := reg.Lookup(verdict.CriteriaSchema); !ok {
		t.Fatal("runx.criteria.v1 is not a kernel packet")
	}
	who := Producer{Package: "review", Method: "judge", Run: "run_1"}
	named := map[string]any{"package": "review", "method": "judge", "run": "run_1"}

	in := verdictValue(t, nil)
	out, err := Stamp(s, in, who)
	if err != nil {
		t.Fatal(err)
	}
	if _, touched := in["evaluator"]; touched {
		t.Fatal("Stamp changed the value it was given")
	}
	got, _ := json.Marshal(out.(map[string]any)["evaluator"])
	want, _ := json.Marshal(named)
	if string(got) != string(want) {
		t.Fatalf("evaluator %s, want %s", got, want)
	}
	if err := s.Check(out); err != nil {
		t.Fatalf("a stamped verdict does not meet its packet: %v", err)
	}
	if _, err := Stamp(s, verdictValue(t, map[string]any{"evaluator": named}), who); err != nil {
		t.Fatalf("a verdict naming its own evaluator: %v", err)
	}
	for name, ev := range map[string]any{
		"another run":     map[string]any{"package": "review", "method": "judge", "run": "run_2"},
		"another package": map[string]any{"package": "other", "method": "judge", "run": "run_1"},
		"one more field":  map[string]any{"package": "review", "method": "judge", "run": "run_1", "step": "x"},
		"not an object":   "review#judge",
	} {
		if _, err := Stamp(s, verdictValue(t, map[string]any{"evaluator": ev}), who); contract.CodeOf(err) != errcode.EvaluatorMismatch {
			t.Errorf("%s: want evaluator_mismatch, got %v", name, err)
		}
	}
	twice := verdictValue(t, nil)
	twice["checks"] = []any{map[string]any{"id": "a", "status": "met"}, map[string]any{"id": "a", "status": "met"}}
	if _, err := Stamp(s, twice, who); contract.CodeOf(err) != errcode.VerdictInvalid {
		t.Fatalf("a check answered twice: want verdict_invalid, got %v", err)
	}
	other := reportSchema(t, FromPackage, "p")
	v := map[string]any{"title": "T"}
	if o, err := Stamp(other, v, who); err != nil || o.(map[string]any)["evaluator"] != nil {
		t.Fatalf("another packet was stamped: %v %v", o, err)
	}
}

// A criteria set a step returns is held to its revision.
func TestStampHoldsCriteriaToTheirRevision(t *testing.T) {
	s, ok := NewRegistry().Lookup(verdict.CriteriaSchema)
	if !ok {
		t.Fatal("runx.criteria.v1 is not a kernel packet")
	}
	set, err := verdict.NewCriteria([]verdict.CheckSpec{{ID: "tests_pass"}, {ID: "docs"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(set)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if _, err := Stamp(s, m, Producer{}); err != nil {
		t.Fatal(err)
	}
	m["checks"].([]any)[0].(map[string]any)["required"] = false
	if _, err := Stamp(s, m, Producer{}); contract.CodeOf(err) != errcode.CriteriaInvalid {
		t.Fatalf("a set changed after it was made: want criteria_invalid, got %v", err)
	}
}
