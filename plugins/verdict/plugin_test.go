package verdict

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
	"github.com/runxhq/runx/sdk/verdict"
)

func TestDescribeIsWellFormed(t *testing.T) {
	info := New().Info()
	if err := plugin.CheckInfo(&info); err != nil {
		t.Fatal(err)
	}
	for _, d := range info.Capabilities {
		if d.Effect != plugin.EffectNone || d.Approval != plugin.ApprovalNone || len(d.PathInputs) != 0 {
			t.Errorf("%s: a verdict tool computes from its input alone; got effect %s approval %s paths %v", d.ID, d.Effect, d.Approval, d.PathInputs)
		}
	}
}

// Over the real wire: a set is made, a verdict on it decided, and a
// verdict about another subject refused with its code and no output.
func TestToolsOverTheWire(t *testing.T) {
	conn := plugintest.Serve(t, New())
	res := conn.Invoke(CapabilityCriteria, plugin.Context{}, map[string]any{"checks": []any{
		map[string]any{"id": "tests_pass"}, map[string]any{"id": "docs", "required": false},
	}})
	if res.Status != plugin.StatusOK {
		t.Fatalf("criteria: %s %s", res.Code, res.Message)
	}
	var set verdict.Criteria
	if err := json.Unmarshal(res.Output, &set); err != nil || set.Schema != verdict.CriteriaSchema || set.Revision != verdict.Revision(set) {
		t.Fatalf("criteria answered %s (%v)", res.Output, err)
	}
	subject := canon.DigestBytes([]byte("subject"))
	v := verdict.Verdict{Schema: verdict.VerdictSchema, Subject: subject, Criteria: set.Revision,
		Checks: []verdict.Answer{{ID: "tests_pass", Status: verdict.Met}}}
	res = conn.Invoke(CapabilityDecide, plugin.Context{}, map[string]any{"verdict": v, "subject": subject, "criteria": set})
	var d verdict.Decision
	if res.Status != plugin.StatusOK || json.Unmarshal(res.Output, &d) != nil || d.Decision != verdict.Met {
		t.Fatalf("decide: %s %s %s", res.Status, res.Code, res.Output)
	}
	res = conn.Invoke(CapabilityDecide, plugin.Context{}, map[string]any{"verdict": v, "subject": canon.DigestBytes([]byte("other")), "criteria": set})
	if res.Status != plugin.StatusRefused || res.Code != errcode.VerdictSubjectMismatch || len(res.Output) != 0 {
		t.Fatalf("a verdict about another subject: %s %s %s", res.Status, res.Code, res.Output)
	}
}

// Each malformed document is refused with its own code.
func TestMalformedInputs(t *testing.T) {
	p := New()
	subject := canon.DigestBytes([]byte("subject"))
	set, err := verdict.NewCriteria([]verdict.CheckSpec{{ID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	v := verdict.Verdict{Schema: verdict.VerdictSchema, Subject: subject, Criteria: set.Revision}
	for _, tc := range []struct {
		name       string
		capability string
		input      string
		want       errcode.Code
	}{
		{"no checks", CapabilityCriteria, `{"checks":[]}`, errcode.CriteriaInvalid},
		{"not an object", CapabilityCriteria, `[]`, errcode.CapabilityInputInvalid},
		{"a verdict with an unknown field", CapabilityDecide, decideInput(t, `{"schema":"runx.verdict.v1","subject":"`+subject+`","criteria":"`+set.Revision+`","checks":[],"score":9}`, subject, set), errcode.VerdictInvalid},
		{"a set with an unknown field", CapabilityDecide, `{"verdict":` + mustJSON(t, v) + `,"subject":"` + subject + `","criteria":{"schema":"runx.criteria.v1","checks":[],"revision":"x","name":"n"}}`, errcode.CriteriaInvalid},
		{"another capability", "verdict.other", `{}`, errcode.CapabilityNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := p.Invoke(t.Context(), &plugin.Call{Capability: tc.capability, Input: []byte(tc.input)})
			if res.Status != plugin.StatusRefused || res.Code != tc.want {
				t.Fatalf("got %s %s (%s), want refused %s", res.Status, res.Code, res.Message, tc.want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func decideInput(t *testing.T, rawVerdict, subject string, set verdict.Criteria) string {
	return `{"verdict":` + rawVerdict + `,"subject":"` + subject + `","criteria":` + mustJSON(t, set) + `}`
}
