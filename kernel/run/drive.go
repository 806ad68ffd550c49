package run

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/runstate"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/errcode"
)

// runCtx is one run (the root or a child) being driven.
type runCtx struct {
	e      *engine
	rec    *journal.Run
	pkg    *pkg.Package
	method *pkg.Method
	inputs map[string]any
	// The run's state in named parts: its place in the tree and what the
	// tree shares, the authority in force, what a turn's call states for
	// the child it starts, and the journal records it drives through.
	runstate.Tree
	runstate.Authority
	runstate.ChildCall
	runstate.Records

	// agents are what a managed agent stated about the turns it answered.
	agents map[string]*AgentStatement
	// manifests holds each operation reference's manifest lookup for the
	// life of the run, verified the installed connectors its drive verified.
	manifests connector.Manifests
	verified  *connector.Verified
	// bound holds the child runs this drive starts to the closure the run
	// was bound to, shared with every child run of the drive.
	bound *boundClosure

	// batching: the batch a fan-out's effect-free items are recorded in;
	// held: what an effect-free root run holds for its seal
	// (kernel/run/step).
	batching runstep.Batching
	// fresh is a run this call created: no step or decision of it can be
	// recorded before its first drive (nobody else has its id yet), so
	// drive does not read them.
	fresh   bool
	held    runstep.Held
	modules *moduleFiles

	// claims are the calls that may act this run sent, by address
	// (kernel/run/step), read from the record at the first that needs them.
	claims runstep.Claims

	actorOnce sync.Once
	actorName string
	// givenArtifacts: scriptport.go (give) and kernel/run/step (a unit's
	// receipt).
	givenArtifacts runstep.Given
}

func newRunCtx(e *engine, rec *journal.Run, p *pkg.Package, m *pkg.Method, inputs map[string]any, b *runstate.Budget, depth int, path string) *runCtx {
	rc := &runCtx{e: e, rec: rec, pkg: p, method: m, inputs: orEmpty(inputs), Tree: runstate.Tree{Budget: b, Depth: depth, Path: path},
		Records: runstate.Records{Outputs: map[string]any{}}, modules: &moduleFiles{pkg: p}, verified: &connector.Verified{}}
	if rec != nil {
		rc.bound = newBoundClosure(p, rec.ClosureDigest)
	}
	return rc
}

// outcome is where driving a run got to.
type outcome struct {
	state   driveState
	outcome seal.Outcome
	reason  seal.Reason
	failure *contract.ErrorBody
	result  any
	waiting []pending
	refused []contract.RefusedAnswer
	trace   []contract.TraceStep
	refs    []receipt.ChildRef
}

// driveState is where a drive of a run (drive) ended; finish turns it into
// the run's envelope and a parent's child step into its own result.
type driveState string

// Drive states.
const (
	// driveSealed: the walk ended; the run seals with its outcome.
	driveSealed driveState = "sealed"
	// drivePaused: a step waits on requests; the run pauses.
	drivePaused driveState = "paused"
	// driveStopped: a signal stopped the walk between steps.
	driveStopped driveState = "stopped"
	// driveError: runx itself failed (the journal, a recorded step it
	// cannot read); the run is left as its journal holds it.
	driveError driveState = "error"
)

// drive walks the method's steps in declared order. A step the journal holds
// as settled is replayed, not run again; the first step that must wait on a
// request pauses the run.
func (rc *runCtx) drive(ctx context.Context) *outcome {
	var err error
	if rc.fresh {
		rc.Recorded, rc.Decisions = map[string]*journal.Step{}, map[string]*journal.Decision{}
	} else {
		if rc.Recorded, err = rc.e.Journal.Steps(durable(ctx), rc.rec.RunID); err != nil {
			return internalFailure(err)
		}
		if rc.Decisions, err = rc.e.Journal.Asks().Decisions(durable(ctx), rc.rec.RunID); err != nil {
			return internalFailure(err)
		}
	}
	if rc.Depth == 0 {
		// The root's own receipt; a child run's was admitted with the
		// skill step that starts it (unitReceipts), so a refusal always
		// leaves room for the receipts its seal needs.
		rc.Budget.Replay(1)
	}
	out := &outcome{state: driveSealed, outcome: seal.OutcomeCompleted}
	sc := &scope{input: rc.inputs, steps: rc.Outputs, runID: rc.rec.RunID, act: rc.rec.Act}
	for _, step := range rc.method.Steps {
		if rec := rc.Recorded[step.ID]; rec != nil {
			rc.Budget.Replay(1)
			if stop := rc.replayStep(step, rec, out); stop {
				return out
			}
			continue
		}
		if ctx.Err() != nil {
			out.state = driveStopped
			return out
		}
		runstep.ReportProgress(ctx, Progress{Event: ProgressStepStarted, RunID: rc.rec.RunID, Address: rc.Address(step.ID)})
		res := rc.runStep(ctx, step, sc)
		if res.Err != nil {
			return internalFailure(res.Err)
		}
		if len(res.Waiting) > 0 || len(res.Refused) > 0 {
			out.state, out.waiting, out.refused = drivePaused, res.Waiting, res.Refused
			return out
		}
		if res.Stopped {
			out.state = driveStopped
			return out
		}
		rc.appendSettled(step, res.Settled, out)
		rc.held.ProgressSealed(ctx, Progress{Event: ProgressStepSealed, RunID: rc.rec.RunID, Address: rc.Address(step.ID), Status: res.Settled.Status})
		if res.Settled.Status != contract.StepSuccess && res.Settled.Status != contract.StepSkipped {
			rc.fail(res.Settled, out)
			return out
		}
	}
	out.result, out.failure = rc.result(out)
	if out.failure != nil {
		out.outcome, out.reason = seal.OutcomeFailed, seal.ReasonStepFailed
	}
	return out
}

// replayStep takes a recorded step's settled result as it was.
func (rc *runCtx) replayStep(step *pkg.Step, rec *journal.Step, out *outcome) bool {
	s, err := settledOf(rec)
	if err != nil {
		*out = *internalFailure(err)
		return true
	}
	rc.appendSettled(step, s, out)
	if s.Status != contract.StepSuccess && s.Status != contract.StepSkipped {
		rc.fail(s, out)
		return true
	}
	return false
}

func (rc *runCtx) appendSettled(step *pkg.Step, s *settled, out *outcome) {
	switch s.Status {
	case contract.StepSuccess:
		rc.Records.Lock()
		rc.Outputs[step.ID] = s.Output
		rc.Records.Unlock()
	case contract.StepSkipped:
		// A skipped step produced nothing: a reference to it gives nothing,
		// so an input fed from it is left out, as an absent value is.
		rc.Records.Lock()
		rc.Outputs[step.ID] = nil
		rc.Records.Unlock()
	}
	out.trace = append(out.trace, contract.TraceStep{StepID: step.ID, Skill: traceKind(step), Status: s.Status, ReceiptID: s.ReceiptID, Error: s.Failure})
	out.refs = append(out.refs, s.Ref)
}

// traceKind is what a run's trace names a step by: the capability a tool
// step calls, or the step's kind.
func traceKind(step *pkg.Step) string {
	if step.Kind == pkg.KindTool && step.Tool != nil && step.Tool.Capability != "" {
		return step.Tool.Capability
	}
	return string(step.Kind)
}

// fail ends the run with a settled step's failure.
func (rc *runCtx) fail(s *settled, out *outcome) {
	out.failure = s.Failure
	switch {
	case s.Failure != nil && s.Failure.Code == errcode.ReceiptBudgetExceeded:
		out.outcome, out.reason = seal.OutcomeRefused, seal.ReasonReceiptBudgetExceeded
	case s.Failure != nil && s.Failure.Code == errcode.CostLimitExceeded:
		// The money limit stopped it: the run is blocked, not failed.
		out.outcome, out.reason = seal.OutcomeBlocked, seal.ReasonCostLimitExceeded
	case s.Failure != nil && s.Failure.Code == errcode.ApprovalDeclined:
		out.outcome, out.reason = seal.OutcomeDeclined, seal.ReasonApprovalDeclined
	case s.Status == contract.StepRefused:
		out.outcome, out.reason = seal.OutcomeRefused, seal.ReasonStepRefused
	default:
		out.outcome, out.reason = seal.OutcomeFailed, seal.ReasonStepFailed
	}
}

func internalFailure(err error) *outcome {
	return &outcome{state: driveError, failure: contract.BodyOf(err)}
}

// result selects the method's public result from the successful producers.
func (rc *runCtx) result(out *outcome) (any, *contract.ErrorBody) {
	status := map[string]contract.StepStatus{}
	for _, t := range out.trace {
		status[t.StepID] = t.Status
	}
	res, err := selectResult(rc.pkg, rc.method, rc.Outputs, status)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	return res, nil
}

// settledOf reads a recorded unit back.
func settledOf(rec *journal.Step) (*settled, error) {
	s := &settled{Status: rec.Status, ReceiptID: rec.ReceiptID}
	bad := func(what string, err error) error {
		return contract.Errorf(errcode.JournalRecordInvalid, "the journal's record of step %s holds %s that does not decode: %v", rec.StepID, what, err)
	}
	if len(rec.Output) > 0 {
		if err := json.Unmarshal(rec.Output, &s.Output); err != nil {
			return nil, bad("an output", err)
		}
	}
	if len(rec.Error) > 0 {
		s.Failure = &contract.ErrorBody{}
		if err := json.Unmarshal(rec.Error, s.Failure); err != nil {
			return nil, bad("an error", err)
		}
	}
	if len(rec.ChildRef) > 0 {
		if err := json.Unmarshal(rec.ChildRef, &s.Ref); err != nil {
			return nil, bad("a receipt commitment", err)
		}
	}
	return s, nil
}
