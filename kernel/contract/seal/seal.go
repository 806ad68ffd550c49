// Package seal names how a run or a step sealed: its outcome, and the
// reason where the outcome alone does not say why. Both are closed
// vocabularies, each value listed once here: the envelope (kernel/contract),
// the receipt (kernel/receipt), the run's records (kernel/journal) and the
// engine all take them from this package.
//
// It is a leaf: it imports only sdk/errcode (a reason that is also a
// failure's code is that code), so kernel/receipt, which imports nothing of
// the kernel but its canonical JSON, can import it too.
package seal

import "github.com/runxhq/runx/sdk/errcode"

// Outcome is how a run or a step sealed, as its receipt records it. A
// reader of runx.receipt.v1 must be able to act on every outcome it meets,
// so a receipt with any other is invalid.
type Outcome string

// Outcomes.
const (
	OutcomeCompleted  Outcome = "completed"
	OutcomeFailed     Outcome = "failed"
	OutcomeRefused    Outcome = "refused"
	OutcomeBlocked    Outcome = "blocked"
	OutcomeDeclined   Outcome = "declined"
	OutcomeSuperseded Outcome = "superseded"
	OutcomeKilled     Outcome = "killed"
	// OutcomeSkipped: a step whose guard was false; never a run's outcome.
	OutcomeSkipped Outcome = "skipped"
)

// Outcomes lists every outcome.
var Outcomes = []Outcome{OutcomeCompleted, OutcomeFailed, OutcomeRefused, OutcomeBlocked,
	OutcomeDeclined, OutcomeSuperseded, OutcomeKilled, OutcomeSkipped}

// Valid reports whether o is one of the outcomes.
func (o Outcome) Valid() bool {
	for _, known := range Outcomes {
		if o == known {
			return true
		}
	}
	return false
}

// RunOutcomes lists the outcomes a run can seal with: every outcome but
// skipped, which only a step has.
var RunOutcomes = func() []Outcome {
	var run []Outcome
	for _, o := range Outcomes {
		if o != OutcomeSkipped {
			run = append(run, o)
		}
	}
	return run
}()

// RunOutcome reports whether a run can seal with o.
func (o Outcome) RunOutcome() bool { return o.Valid() && o != OutcomeSkipped }

// Reason says why a run sealed as it did, where the outcome alone does not.
type Reason string

// Reasons. One that is also the code of the failure that sealed the run is
// that code, from the registry.
const (
	ReasonStepFailed            Reason = "step_failed"
	ReasonStepRefused           Reason = "step_refused"
	ReasonPreparationRefused    Reason = "preparation_refused"
	ReasonReceiptBudgetExceeded        = Reason(errcode.ReceiptBudgetExceeded)
	ReasonHostClosed                   = Reason(errcode.HostClosed)
	ReasonApprovalDeclined             = Reason(errcode.ApprovalDeclined)
	ReasonCancelled             Reason = "cancelled"
	ReasonInterrupted                  = Reason(errcode.Interrupted)
	// ReasonCostLimitExceeded: a call's quote was over what the run's
	// money limit left, so nothing was sent and the run sealed blocked.
	ReasonCostLimitExceeded = Reason(errcode.CostLimitExceeded)
)

// Reasons lists every reason.
var Reasons = []Reason{ReasonStepFailed, ReasonStepRefused, ReasonPreparationRefused, ReasonReceiptBudgetExceeded,
	ReasonHostClosed, ReasonApprovalDeclined, ReasonCancelled, ReasonInterrupted, ReasonCostLimitExceeded}
