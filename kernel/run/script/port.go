package script

import (
	"context"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Run is what a script's record needs of the run that drives it; the
// engine satisfies it (kernel/run/scriptport.go).
type Run interface {
	// Settled reads one journal record of a settled request as the engine
	// reads any step's: its status, its failure, and the receipt it
	// committed (nil when none).
	Settled(rec *journal.Step) (contract.StepStatus, *contract.ErrorBody, *receipt.ChildRef, error)
}

// Journal is the part of the run's journal a script's record reads and
// writes.
type Journal interface {
	Steps(ctx context.Context, runID string) (map[string]*journal.Step, error)
	StepsAt(ctx context.Context, runID string, addresses []string) (map[string]*journal.Step, error)
	RecordStep(ctx context.Context, s *journal.Step) error
}

// Engine is what driving a script step needs of the run engine: the
// worker to send the script to, the units its calls run as, the requests
// its waits open, and settling the step. The engine satisfies it
// (kernel/run/scriptport.go).
type Engine interface {
	Run
	// Invoke sends the worker one call, its answer bounded to max bytes;
	// AnswerRoom, AnswerTooLarge and ChargeAnswer are the run's bound on
	// what its plugins answer, Stopping whether the run is being stopped.
	Invoke(ctx context.Context, call *sdk.Call, max int64) (*sdk.Result, *receipt.PluginRef, error)
	AnswerRoom(max int64) (int64, bool)
	AnswerTooLarge(local string) *contract.ErrorBody
	ChargeAnswer(local string, res *sdk.Result, err error, narrowed bool) *contract.ErrorBody
	Stopping(ctx context.Context) bool
	// ChildLimits refuses the n-th skill call the authority's max_fanout
	// or max_child_depth does not allow.
	ChildLimits(step *pkg.Step, n int) error
	// Unit carries out one call as a unit of its own at address; Refuse
	// settles one refused, running nothing. The unit's receipt names the
	// artifacts its input was given by reference (given).
	Unit(ctx context.Context, call *pkg.Step, address string, input map[string]any, given []receipt.Artifact, level int) Result
	Refuse(ctx context.Context, step *pkg.Step, address string, level int, given []receipt.Artifact, failure *contract.ErrorBody) Result
}

// Limits are the ceilings a script's worker runs under.
type Limits struct {
	// Timeout is the worker's own bound on one invocation, HostGrace what
	// the kernel waits past it; MaxOutputBytes bounds one answer's output.
	Timeout        time.Duration
	HostGrace      time.Duration
	MaxOutputBytes int64
}

// Settle is how a script step settles once its driver is done with it:
// as it stands when nothing ran (Ran nil: the step refused, or the worker
// broke its protocol), otherwise as the worker ran it, its output held to
// the step's declared outputs, its receipt committing the calls' (Refs).
type Settle struct {
	Status  contract.StepStatus
	Output  any
	Failure *contract.ErrorBody
	Ran     *Ran
	Refs    []receipt.ChildRef
}

// Ran is what the step's receipt names of the worker's run.
type Ran struct {
	// Inputs are the step's inputs, as its receipt digests them.
	Inputs map[string]any
	Plugin *receipt.PluginRef
	// Given are the artifacts the step gave its script in place of
	// inputs, Read those the script read back.
	Given, Read []receipt.Artifact
}

// Settled is a unit the run settled.
type Settled struct {
	Status    contract.StepStatus
	Output    any
	Failure   *contract.ErrorBody
	ReceiptID string
	Ref       receipt.ChildRef
}

// Wait is a wait of the script whose time has not come, at local inside
// the run, for the engine to bind as a request the run waits on until
// Until (Unix milliseconds).
type Wait struct {
	Local string
	Until int64
}

// Waiting is a request a unit waits on, in the run that asks it (RunID)
// at its address there (Local).
type Waiting struct {
	contract.Request
	RunID string
	Local string
}

// Result is what driving a script step, or carrying out one of its calls,
// came to: settled, waiting, refused answers, stopped, or an error; or,
// from Drive, how the step settles (Settle), which the engine records.
type Result struct {
	Settle  *Settle
	Settled *Settled
	// Waits are the script's own, bound by the engine before Waiting,
	// what its calls wait on.
	Waits   []Wait
	Waiting []Waiting
	Refused []contract.RefusedAnswer
	Stopped bool
	Err     error
}
