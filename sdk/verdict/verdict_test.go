package verdict

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

var (
	subject = canon.DigestBytes([]byte("the subject"))
	other   = canon.DigestBytes([]byte("another subject"))
)

func boolp(b bool) *bool { return &b }

// set is tests_pass and lint_clean (required) and docs (optional).
func set(t *testing.T) Criteria {
	t.Helper()
	c, err := NewCriteria([]CheckSpec{
		{ID: "tests_pass", Description: "The test suite passes."},
		{ID: "lint_clean"},
		{ID: "docs", Required: boolp(false)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func verdictOf(c Criteria, answers ...Answer) Verdict {
	return Verdict{Schema: VerdictSchema, Subject: subject, Criteria: c.Revision, Checks: answers}
}

func codeOf(t *testing.T, err error) errcode.Code {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want a *verdict.Error, got %v", err)
	}
	return e.Code
}

// The one rule, each branch: any required not_met is not_met (even beside
// an inconclusive one); else any required inconclusive or unanswered is
// inconclusive; only every required met is met. An optional check never
// decides.
func TestDecideRule(t *testing.T) {
	c := set(t)
	cases := []struct {
		name    string
		answers []Answer
		want    Status
	}{
		{"every required met", []Answer{{ID: "tests_pass", Status: Met}, {ID: "lint_clean", Status: Met}}, Met},
		{"every required met, optional not_met", []Answer{{ID: "tests_pass", Status: Met}, {ID: "lint_clean", Status: Met}, {ID: "docs", Status: NotMet}}, Met},
		{"one required not_met", []Answer{{ID: "tests_pass", Status: NotMet}, {ID: "lint_clean", Status: Met}}, NotMet},
		{"not_met beats inconclusive", []Answer{{ID: "tests_pass", Status: Inconclusive}, {ID: "lint_clean", Status: NotMet}}, NotMet},
		{"not_met beats unanswered", []Answer{{ID: "lint_clean", Status: NotMet}}, NotMet},
		{"one required inconclusive", []Answer{{ID: "tests_pass", Status: Met}, {ID: "lint_clean", Status: Inconclusive}}, Inconclusive},
		{"one required unanswered", []Answer{{ID: "tests_pass", Status: Met}}, Inconclusive},
		{"nothing answered", nil, Inconclusive},
		{"only the optional answered", []Answer{{ID: "docs", Status: Met}}, Inconclusive},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decide(verdictOf(c, tc.answers...), subject, c)
			if err != nil {
				t.Fatal(err)
			}
			if d.Decision != tc.want {
				t.Fatalf("decision %s, want %s", d.Decision, tc.want)
			}
			if len(d.Checks) != len(c.Checks) || d.Subject != subject || d.Criteria != c.Revision {
				t.Fatalf("decision %+v does not report every check of the set against its subject and revision", d)
			}
		})
	}
}

// Every check of the set is reported, in the set's order, unanswered ones
// as unanswered, with the verdict's reasons.
func TestDecideReportsEveryCheck(t *testing.T) {
	c := set(t)
	d, err := Decide(verdictOf(c, Answer{ID: "lint_clean", Status: Met, Reason: "no findings"}), subject, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []Decided{
		{ID: "docs", Required: false, Status: Unanswered},
		{ID: "lint_clean", Required: true, Status: Met, Reason: "no findings"},
		{ID: "tests_pass", Required: true, Status: Unanswered},
	}
	got, _ := json.Marshal(d.Checks)
	w, _ := json.Marshal(want)
	if string(got) != string(w) {
		t.Fatalf("checks\n%s\nwant\n%s", got, w)
	}
}

// A verdict about another subject, or answering another set, is refused:
// no decision at all, not inconclusive.
func TestDecideRefuses(t *testing.T) {
	c := set(t)
	otherSet, err := NewCriteria([]CheckSpec{{ID: "tests_pass"}})
	if err != nil {
		t.Fatal(err)
	}
	met := []Answer{{ID: "tests_pass", Status: Met}, {ID: "lint_clean", Status: Met}}
	tampered := c
	tampered.Checks = append([]Check(nil), c.Checks...)
	tampered.Checks[0].Required = true // docs made required, revision kept
	cases := []struct {
		name    string
		v       Verdict
		subject string
		c       Criteria
		want    errcode.Code
	}{
		{"another subject", Verdict{Schema: VerdictSchema, Subject: other, Criteria: c.Revision, Checks: met}, subject, c, errcode.VerdictSubjectMismatch},
		{"another set's revision", verdictOf(otherSet, met[0]), subject, c, errcode.VerdictCriteriaMismatch},
		{"a check the set does not hold", verdictOf(c, append(met, Answer{ID: "speed", Status: Met})...), subject, c, errcode.VerdictCriteriaMismatch},
		{"a tampered set", verdictOf(c, met...), subject, tampered, errcode.CriteriaInvalid},
		{"a set with another schema", verdictOf(c, met...), subject, Criteria{Schema: "runx.criteria.v0", Checks: c.Checks, Revision: c.Revision}, errcode.CriteriaInvalid},
		{"a reader's subject that is no digest", verdictOf(c, met...), "main", c, errcode.CapabilityInputInvalid},
		{"a check answered twice", verdictOf(c, met[0], met[0]), subject, c, errcode.VerdictInvalid},
		{"an unknown status", verdictOf(c, Answer{ID: "tests_pass", Status: "passed"}), subject, c, errcode.VerdictInvalid},
		{"unanswered is no answer", verdictOf(c, Answer{ID: "tests_pass", Status: Unanswered}), subject, c, errcode.VerdictInvalid},
		{"another schema", Verdict{Schema: "runx.verdict.v2", Subject: subject, Criteria: c.Revision}, subject, c, errcode.VerdictInvalid},
		{"a subject that is no digest", Verdict{Schema: VerdictSchema, Subject: "sha256:AB", Criteria: c.Revision}, subject, c, errcode.VerdictInvalid},
		{"a half-named evaluator", Verdict{Schema: VerdictSchema, Subject: subject, Criteria: c.Revision, Evaluator: &Evaluator{Package: "p"}}, subject, c, errcode.VerdictInvalid},
		{"a reason over its bound", verdictOf(c, Answer{ID: "tests_pass", Status: Met, Reason: strings.Repeat("x", MaxReason+1)}), subject, c, errcode.VerdictInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decide(tc.v, tc.subject, tc.c)
			if err == nil {
				t.Fatalf("decided %s, want refused %s", d.Decision, tc.want)
			}
			if got := codeOf(t, err); got != tc.want {
				t.Fatalf("code %s, want %s (%v)", got, tc.want, err)
			}
			if d.Decision != "" || d.Checks != nil {
				t.Fatalf("a refused verdict answered %+v", d)
			}
		})
	}
}

// A set's revision is the digest of what it holds: the same checks in any
// order make the same set; any change to what it holds changes it.
func TestCriteriaRevision(t *testing.T) {
	a := set(t)
	b, err := NewCriteria([]CheckSpec{{ID: "docs", Required: boolp(false)}, {ID: "lint_clean", Required: boolp(true)}, {ID: "tests_pass", Description: "The test suite passes."}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Revision != b.Revision {
		t.Fatalf("the same checks in another order made revision %s and %s", a.Revision, b.Revision)
	}
	held, _ := canon.Digest(map[string]any{"schema": CriteriaSchema, "checks": a.Checks})
	if a.Revision != held {
		t.Fatalf("revision %s, want the digest of what the set holds, %s", a.Revision, held)
	}
	for _, change := range [][]CheckSpec{
		{{ID: "docs"}, {ID: "lint_clean"}, {ID: "tests_pass", Description: "The test suite passes."}},
		{{ID: "docs", Required: boolp(false)}, {ID: "lint_clean"}, {ID: "tests_pass"}},
		{{ID: "lint_clean"}, {ID: "tests_pass", Description: "The test suite passes."}},
	} {
		c, err := NewCriteria(change)
		if err != nil {
			t.Fatal(err)
		}
		if c.Revision == a.Revision {
			t.Fatalf("%+v made the same revision as another set", change)
		}
	}
	if !a.Checks[1].Required || a.Checks[0].Required || a.Checks[0].ID != "docs" {
		t.Fatalf("checks %+v: want id order and required written out, default true", a.Checks)
	}
}

func TestNewCriteriaRefuses(t *testing.T) {
	many := make([]CheckSpec, MaxChecks+1)
	for i := range many {
		many[i] = CheckSpec{ID: "c" + strings.Repeat("x", i%60) + string(rune('a'+i%26))}
	}
	for name, specs := range map[string][]CheckSpec{
		"no checks":          nil,
		"too many":           many,
		"a repeated id":      {{ID: "a"}, {ID: "a"}},
		"an id that is none": {{ID: "Tests Pass"}},
		"nothing required":   {{ID: "a", Required: boolp(false)}},
		"a long description": {{ID: "a", Description: strings.Repeat("d", MaxDescription+1)}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewCriteria(specs); err == nil || codeOf(t, err) != errcode.CriteriaInvalid {
				t.Fatalf("want criteria_invalid, got %v", err)
			}
		})
	}
}

// Parsing is strict: an unknown field or trailing data is refused, and a
// set made by NewCriteria reads back as itself.
func TestParse(t *testing.T) {
	c := set(t)
	raw, _ := json.Marshal(c)
	back, err := ParseCriteria(raw)
	if err != nil || back.Revision != c.Revision {
		t.Fatalf("a made set did not read back: %v", err)
	}
	if _, err := ParseCriteria(append(raw[:len(raw)-1:len(raw)-1], []byte(`,"name":"x"}`)...)); err == nil || codeOf(t, err) != errcode.CriteriaInvalid {
		t.Fatalf("an unknown field in a set: want criteria_invalid, got %v", err)
	}
	v, _ := json.Marshal(verdictOf(c, Answer{ID: "docs", Status: Met}))
	if _, err := ParseVerdict(v); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Replace(string(v), `"schema"`, `"score":1,"schema"`, 1),
		string(v) + `{}`,
		`[]`,
	} {
		if _, err := ParseVerdict([]byte(bad)); err == nil || codeOf(t, err) != errcode.VerdictInvalid {
			t.Fatalf("%s: want verdict_invalid, got %v", bad, err)
		}
	}
}
