package receipt

import (
	"fmt"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// validateBody checks what every runx.receipt.v1 body must hold. Seal runs it
// so runx never signs a body a verifier would refuse.
func validateBody(b *Body) error {
	if err := validateFields(b); err != nil {
		return err
	}
	return validateChildren(b.Children)
}

// validateFields checks a body apart from its children. Verify runs it so a
// body signed elsewhere is held to the same rule; it leaves the children to
// the walk, which reports a bad or repeated commitment by the receipt it
// names.
func validateFields(b *Body) error {
	switch b.Kind {
	case KindRun:
	case KindStep:
		if b.StepID == "" {
			return bodyInvalid("a step receipt needs a step_id")
		}
	default:
		return bodyInvalid(fmt.Sprintf("kind %q is not %q or %q", b.Kind, KindRun, KindStep))
	}
	if b.RunID == "" {
		return bodyInvalid("run_id is empty")
	}
	if b.SkillName == "" {
		return bodyInvalid("skill_name is empty")
	}
	if !b.Outcome.Valid() {
		return bodyInvalid(fmt.Sprintf("outcome %q is not one runx.receipt.v1 knows", b.Outcome))
	}
	started, ok := parseTime(b.StartedAt)
	if !ok {
		return bodyInvalid(fmt.Sprintf("started_at %q is not UTC RFC 3339 with milliseconds (%s)", b.StartedAt, TimeLayout))
	}
	sealed, ok := parseTime(b.SealedAt)
	if !ok {
		return bodyInvalid(fmt.Sprintf("sealed_at %q is not UTC RFC 3339 with milliseconds (%s)", b.SealedAt, TimeLayout))
	}
	if sealed.Before(started) {
		return bodyInvalid("sealed_at is before started_at")
	}
	// A slice, not a map, so the first bad field is reported the same way
	// every time.
	for _, f := range []struct{ name, digest string }{
		{"package_digest", b.PackageDigest},
		{"closure_digest", b.ClosureDigest},
		{"authority_digest", b.AuthorityDigest},
		{"inputs_digest", b.InputsDigest},
		{"output_digest", b.OutputDigest},
	} {
		if f.digest != "" && !canon.ValidDigest(f.digest) {
			return bodyInvalid(fmt.Sprintf("%s is not sha256:<64 lowercase hex>", f.name))
		}
	}
	if b.Process != nil && !canon.ValidDigest(b.Process.ArgvDigest) {
		return bodyInvalid("the process record's argv_digest is not sha256:<64 lowercase hex>")
	}
	return validateArtifacts(b.Artifacts)
}

// validateChildren refuses a malformed or repeated commitment up front,
// because a verifier would refuse the tree for it anyway.
func validateChildren(children []ChildRef) error {
	seen := make(map[string]struct{}, len(children))
	for i, c := range children {
		if !canon.ValidDigest(c.ReceiptID) {
			return bodyInvalid(fmt.Sprintf("children[%d].receipt_id is not a receipt id", i))
		}
		if !canon.ValidDigest(c.SignedDigest) {
			return bodyInvalid(fmt.Sprintf("children[%d].signed_digest is not sha256:<64 lowercase hex>", i))
		}
		if _, dup := seen[c.ReceiptID]; dup {
			return bodyInvalid(fmt.Sprintf("children[%d] commits %s a second time", i, c.ReceiptID))
		}
		seen[c.ReceiptID] = struct{}{}
	}
	return nil
}

func bodyInvalid(msg string) *Error {
	return refuse(errcode.ReceiptBodyInvalid, msg, nil)
}
