package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// ParseCriteria reads a runx.criteria.v1 set strictly (no unknown field)
// and checks that its revision is the digest of what it holds.
func ParseCriteria(raw []byte) (Criteria, error) {
	var c Criteria
	if err := strict(raw, &c); err != nil {
		return Criteria{}, refuse(errcode.CriteriaInvalid, "the set is not a runx.criteria.v1 document: %v", err)
	}
	return checkCriteria(c)
}

// ParseVerdict reads a runx.verdict.v1 strictly (no unknown field) and
// checks its shape: a subject and a criteria revision that are digests,
// each answer naming a check once with a known status, bounded reasons,
// and an evaluator, when one is named, naming all three of its parts.
func ParseVerdict(raw []byte) (Verdict, error) {
	var v Verdict
	if err := strict(raw, &v); err != nil {
		return Verdict{}, refuse(errcode.VerdictInvalid, "the verdict is not a runx.verdict.v1 document: %v", err)
	}
	return v, CheckVerdict(v)
}

// CheckVerdict checks a verdict's shape, as ParseVerdict does.
func CheckVerdict(v Verdict) error {
	switch {
	case v.Schema != VerdictSchema:
		return refuse(errcode.VerdictInvalid, "the verdict's schema is %q, not %s", clip(v.Schema), VerdictSchema)
	case !canon.ValidDigest(v.Subject):
		return refuse(errcode.VerdictInvalid, "the verdict's subject %q is not a digest (sha256:<64 lowercase hex>)", clip(v.Subject))
	case !canon.ValidDigest(v.Criteria):
		return refuse(errcode.VerdictInvalid, "the verdict's criteria %q is not a criteria revision (sha256:<64 lowercase hex>)", clip(v.Criteria))
	case len(v.Checks) > MaxChecks:
		return refuse(errcode.VerdictInvalid, "the verdict answers %d checks; a set holds at most %d", len(v.Checks), MaxChecks)
	}
	seen := make(map[string]bool, len(v.Checks))
	for i, a := range v.Checks {
		switch {
		case !checkID.MatchString(a.ID):
			return refuse(errcode.VerdictInvalid, "checks[%d].id %q is not a check id", i, clip(a.ID))
		case seen[a.ID]:
			return refuse(errcode.VerdictInvalid, "check %s is answered twice", a.ID)
		case a.Status != Met && a.Status != NotMet && a.Status != Inconclusive:
			return refuse(errcode.VerdictInvalid, "check %s: status %q is not met, not_met or inconclusive", a.ID, clip(string(a.Status)))
		case len(a.Reason) > MaxReason:
			return refuse(errcode.VerdictInvalid, "check %s: its reason is over %d bytes", a.ID, MaxReason)
		}
		seen[a.ID] = true
	}
	if e := v.Evaluator; e != nil {
		for _, part := range []string{e.Package, e.Method, e.Run} {
			if part == "" || len(part) > maxEvaluatorField {
				return refuse(errcode.VerdictInvalid, "the verdict's evaluator names its package, method and run, each at most %d bytes", maxEvaluatorField)
			}
		}
	}
	return nil
}

// strict decodes exactly one JSON object into v, refusing unknown fields
// and anything after it.
func strict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the document")
	}
	return nil
}
