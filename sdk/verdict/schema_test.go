package verdict

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/internal/importrule"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestImportBoundary holds the package to what doc.go promises: pure, over
// the standard library, sdk/canon and sdk/errcode.
func TestImportBoundary(t *testing.T) {
	importrule.Only(t, ".", "sdk/verdict", "github.com/runxhq/runx/sdk/canon", "github.com/runxhq/runx/sdk/errcode")
}

func compile(t *testing.T, name, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(schema)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func valid(t *testing.T, s *jsonschema.Schema, v any) error {
	t.Helper()
	raw, _ := json.Marshal(v)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(doc)
}

// The schemas compile and describe what the package makes, and refuse
// what it refuses by shape.
func TestSchemasDescribeTheFormats(t *testing.T) {
	c := set(t)
	v := verdictOf(c, Answer{ID: "tests_pass", Status: Met, Reason: "ok"})
	v.Evaluator = &Evaluator{Package: "review", Method: "judge", Run: "run_1"}
	d, err := Decide(v, subject, c)
	if err != nil {
		t.Fatal(err)
	}
	criteria, verdict, decision := compile(t, "criteria.json", CriteriaJSONSchema), compile(t, "verdict.json", VerdictJSONSchema), compile(t, "decision.json", DecisionJSONSchema)
	for _, ok := range []struct {
		s *jsonschema.Schema
		v any
	}{{criteria, c}, {verdict, v}, {decision, d}} {
		if err := valid(t, ok.s, ok.v); err != nil {
			t.Errorf("%+v: %v", ok.v, err)
		}
	}
	bad := v
	bad.Checks = []Answer{{ID: "tests_pass", Status: Unanswered}}
	if valid(t, verdict, bad) == nil {
		t.Error("the verdict schema admits an unanswered status")
	}
	if valid(t, verdict, map[string]any{"schema": VerdictSchema, "subject": subject, "criteria": c.Revision, "checks": []any{}, "score": 1}) == nil {
		t.Error("the verdict schema admits an unknown field")
	}
	if valid(t, criteria, map[string]any{"schema": CriteriaSchema, "revision": c.Revision, "checks": []any{}}) == nil {
		t.Error("the criteria schema admits a set of no checks")
	}
}
