package step

import (
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/artifactstore"
)

// Settled is a unit (a step, a fan-out item) whose receipt is sealed and
// whose record is in the journal.
type Settled struct {
	Status    contract.StepStatus
	Output    any
	Failure   *contract.ErrorBody
	ReceiptID string
	Ref       receipt.ChildRef
	// Artifacts are its packet outputs' project artifacts, by output name.
	Artifacts map[string]artifactstore.Descriptor
}

// Pending is a request a run (or a child) waits on, addressed from the
// root.
type Pending struct {
	contract.Request
	RunID string
	Local string // the address inside its own run
}

// Result is what running one step produced: settled, waiting, or stopped.
type Result struct {
	Settled *Settled
	Waiting []Pending
	Refused []contract.RefusedAnswer
	Stopped bool
	Err     error
}
