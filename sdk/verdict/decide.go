package verdict

import (
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Decision is what a reader learns from a verdict it did not refuse.
type Decision struct {
	// Checks are the set's checks in its order, each with the verdict's
	// answer (Unanswered when it gave none).
	Checks    []Decided  `json:"checks"`
	Criteria  string     `json:"criteria"`
	Decision  Status     `json:"decision"`
	Evaluator *Evaluator `json:"evaluator,omitempty"`
	Subject   string     `json:"subject"`
}

// Decided is one check of a decision.
type Decided struct {
	ID       string `json:"id"`
	Reason   string `json:"reason,omitempty"`
	Required bool   `json:"required"`
	Status   Status `json:"status"`
}

// Decide decides verdict v for a reader who expects it to judge subject
// against criteria set c, by one rule: any required check not_met makes it
// not_met; otherwise any required check inconclusive or unanswered makes
// it inconclusive; only every required check met makes it met. A check the
// set does not require is reported and decides nothing.
//
// A verdict that judges another subject, or answers another set (another
// revision, or a check the set does not hold), is refused with a typed
// *Error and no decision: a refused verdict answers nothing, which is not
// inconclusive. So is a malformed verdict or set.
func Decide(v Verdict, subject string, c Criteria) (Decision, error) {
	if !canon.ValidDigest(subject) {
		return Decision{}, refuse(errcode.CapabilityInputInvalid, "the subject to decide for, %q, is not a digest (sha256:<64 lowercase hex>)", clip(subject))
	}
	c, err := checkCriteria(c)
	if err != nil {
		return Decision{}, err
	}
	if err := CheckVerdict(v); err != nil {
		return Decision{}, err
	}
	if v.Subject != subject {
		return Decision{}, refuse(errcode.VerdictSubjectMismatch, "the verdict judges subject %s, not %s; it answers nothing about %s", v.Subject, subject, subject)
	}
	if v.Criteria != c.Revision {
		return Decision{}, refuse(errcode.VerdictCriteriaMismatch, "the verdict answers criteria revision %s, not %s; it answers nothing about that set", v.Criteria, c.Revision)
	}
	held := make(map[string]bool, len(c.Checks))
	for _, check := range c.Checks {
		held[check.ID] = true
	}
	answers := make(map[string]Answer, len(v.Checks))
	for _, a := range v.Checks {
		if !held[a.ID] {
			return Decision{}, refuse(errcode.VerdictCriteriaMismatch, "the verdict answers check %s, which set %s does not hold; it answers another set", a.ID, c.Revision)
		}
		answers[a.ID] = a
	}
	d := Decision{Subject: subject, Criteria: c.Revision, Evaluator: v.Evaluator, Checks: make([]Decided, len(c.Checks))}
	notMet, open := false, false
	for i, check := range c.Checks {
		a, ok := answers[check.ID]
		status := a.Status
		if !ok {
			status = Unanswered
		}
		d.Checks[i] = Decided{ID: check.ID, Required: check.Required, Status: status, Reason: a.Reason}
		if !check.Required {
			continue
		}
		switch status {
		case NotMet:
			notMet = true
		case Met:
		default:
			open = true
		}
	}
	switch {
	case notMet:
		d.Decision = NotMet
	case open:
		d.Decision = Inconclusive
	default:
		d.Decision = Met
	}
	return d, nil
}
