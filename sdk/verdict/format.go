package verdict

import (
	"fmt"
	"regexp"

	"github.com/runxhq/runx/sdk/errcode"
)

// The packet formats this package owns.
const (
	CriteriaSchema = "runx.criteria.v1"
	VerdictSchema  = "runx.verdict.v1"
)

// Status is a check's answer in a verdict, and a decision's value.
type Status string

// Statuses. A decision is one of the first three; Unanswered only ever
// describes a check a verdict left out.
const (
	Met          Status = "met"
	NotMet       Status = "not_met"
	Inconclusive Status = "inconclusive"
	Unanswered   Status = "unanswered"
)

// Bounds of one criteria set and one verdict: a set of checks a person
// reads, not a data set.
const (
	MaxChecks      = 256
	MaxDescription = 1024
	MaxReason      = 4096
	// maxEvaluatorField bounds each of the evaluator's names.
	maxEvaluatorField = 1024
)

// checkID is a check's id: short, lowercase, stable, so a verdict names it
// exactly.
var checkID = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// Check is one check of a criteria set. Fields are in JCS member order, so
// the encoded set is canonical and its revision reproducible.
type Check struct {
	Description string `json:"description,omitempty"`
	ID          string `json:"id"`
	// Required: a decision waits on it. A check that is not required is
	// answered and reported, and never decides.
	Required bool `json:"required"`
}

// Criteria is a runx.criteria.v1 set: its checks in id order, and its
// revision, the digest of the rest (Revision).
type Criteria struct {
	Checks   []Check `json:"checks"`
	Revision string  `json:"revision"`
	Schema   string  `json:"schema"`
}

// Answer is a verdict's answer to one check.
type Answer struct {
	ID string `json:"id"`
	// Reason says why, for a person; it decides nothing.
	Reason string `json:"reason,omitempty"`
	Status Status `json:"status"`
}

// Evaluator names the step that returned a verdict: the package and method
// it ran in and the run. runx writes it; a step need not.
type Evaluator struct {
	Method  string `json:"method"`
	Package string `json:"package"`
	Run     string `json:"run"`
}

// Verdict is a runx.verdict.v1: whether Subject meets the criteria set of
// revision Criteria, check by check.
type Verdict struct {
	Checks    []Answer   `json:"checks"`
	Criteria  string     `json:"criteria"`
	Evaluator *Evaluator `json:"evaluator,omitempty"`
	Schema    string     `json:"schema"`
	Subject   string     `json:"subject"`
}

// Error is a typed refusal of a set, a verdict or a decision: Code is one
// of errcode's verdict codes (or capability_input_invalid for a reader's
// own input).
type Error struct {
	Code    errcode.Code
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrorCode is the refusal's code, for whoever reads codes off errors.
func (e *Error) ErrorCode() errcode.Code { return e.Code }

func refuse(code errcode.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
