package verdict

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// CheckSpec is one check as verdict.criteria takes it: Required defaults
// to true, since a check a set names is one its verdicts must meet unless
// the set says otherwise.
type CheckSpec struct {
	Description string `json:"description,omitempty"`
	ID          string `json:"id"`
	Required    *bool  `json:"required,omitempty"`
}

// NewCriteria makes a criteria set from its checks: in id order, each
// with its required flag written out, and its revision the digest of what
// it holds, so the same checks in any order make the same set.
func NewCriteria(specs []CheckSpec) (Criteria, error) {
	if len(specs) == 0 || len(specs) > MaxChecks {
		return Criteria{}, refuse(errcode.CriteriaInvalid, "a criteria set holds 1 to %d checks; this one has %d", MaxChecks, len(specs))
	}
	checks := make([]Check, len(specs))
	required := 0
	for i, s := range specs {
		if !checkID.MatchString(s.ID) {
			return Criteria{}, refuse(errcode.CriteriaInvalid, "checks[%d].id %q is not a check id (lowercase letters, digits, '_', '.', '-', at most 64)", i, clip(s.ID))
		}
		if len(s.Description) > MaxDescription || !utf8.ValidString(s.Description) {
			return Criteria{}, refuse(errcode.CriteriaInvalid, "check %s: its description is over %d bytes or not UTF-8", s.ID, MaxDescription)
		}
		c := Check{ID: s.ID, Description: s.Description, Required: s.Required == nil || *s.Required}
		if c.Required {
			required++
		}
		checks[i] = c
	}
	slices.SortFunc(checks, func(a, b Check) int { return strings.Compare(a.ID, b.ID) })
	for i := 1; i < len(checks); i++ {
		if checks[i].ID == checks[i-1].ID {
			return Criteria{}, refuse(errcode.CriteriaInvalid, "check %s is named twice", checks[i].ID)
		}
	}
	if required == 0 {
		// Under the rule every required check met is met: a set that
		// requires nothing would find anything met.
		return Criteria{}, refuse(errcode.CriteriaInvalid, "no check of the set is required, so it would find anything met; require at least one")
	}
	c := Criteria{Checks: checks, Schema: CriteriaSchema}
	c.Revision = Revision(c)
	return c, nil
}

// Revision is the digest of what a set holds: its schema and checks,
// everything but the revision itself.
func Revision(c Criteria) string {
	held := struct {
		Checks []Check `json:"checks"`
		Schema string  `json:"schema"`
	}{c.Checks, c.Schema}
	d, err := canon.Digest(held)
	if err != nil {
		// Checks are strings and booleans, which always encode.
		panic("verdict: criteria did not encode: " + err.Error())
	}
	return d
}

// checkCriteria takes a set as a reader passes it and returns it as
// NewCriteria makes it, refusing one whose revision is not the digest of
// what it holds.
func checkCriteria(c Criteria) (Criteria, error) {
	if c.Schema != CriteriaSchema {
		return Criteria{}, refuse(errcode.CriteriaInvalid, "the set's schema is %q, not %s", clip(c.Schema), CriteriaSchema)
	}
	specs := make([]CheckSpec, len(c.Checks))
	for i, ch := range c.Checks {
		specs[i] = CheckSpec{ID: ch.ID, Description: ch.Description, Required: &ch.Required}
	}
	made, err := NewCriteria(specs)
	if err != nil {
		return Criteria{}, err
	}
	if made.Revision != c.Revision {
		return Criteria{}, refuse(errcode.CriteriaInvalid, "the set's revision %s is not the digest of what it holds (%s); it was changed after it was made", clip(c.Revision), made.Revision)
	}
	return made, nil
}

// clip bounds a value echoed in a message.
func clip(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
