package step

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// ExecGraph is the execution class of a unit the graph itself settles (a
// skipped step, a fan-out over its items): nothing ran it.
const ExecGraph = "graph"

// StepBody is the part of a step receipt every unit shares.
func (r *Run) StepBody(step *pkg.Step, local string) receipt.Body {
	return receipt.Body{
		Kind:          receipt.KindStep,
		RunID:         r.ID,
		SkillName:     r.Package.Name,
		Method:        r.Method.Name,
		StepID:        local,
		StepKind:      string(step.Kind),
		PackageDigest: r.Package.Digest,
		ClosureDigest: r.ClosureDigest,
		StartedAt:     receipt.FormatTime(r.Clock()),
		Runtime:       &receipt.Runtime{RunxVersion: r.RunxVersion},
		Artifacts:     r.Given.Of(local),
	}
}

// SettleNow seals a unit that ran nothing (skipped, or failed before dispatch).
func (r *Run) SettleNow(ctx context.Context, step *pkg.Step, local string, level int, status contract.StepStatus, output any, failure *contract.ErrorBody, children []receipt.ChildRef) Result {
	if level > runstate.TreeMaxDepth || !r.Tree.Budget.Admit(1) {
		return Result{Settled: &Settled{Status: contract.StepRefused, Failure: &contract.ErrorBody{Code: errcode.ReceiptBudgetExceeded, Message: "the receipt tree is at " + r.Tree.Budget.Bound()}}}
	}
	body := r.StepBody(step, local)
	if status == contract.StepSkipped {
		body.Execution = ExecGraph
	}
	return r.Settle(ctx, step, local, body, status, output, failure, children)
}

// Settle seals a unit's receipt, stores it, and records the unit in the
// journal as one transition.
func (r *Run) Settle(ctx context.Context, step *pkg.Step, local string, body receipt.Body, status contract.StepStatus, output any, failure *contract.ErrorBody, children []receipt.ChildRef) Result {
	s, rec, err := r.Seal(step, local, body, status, output, failure, children)
	if err != nil {
		return Result{Err: err}
	}
	if b := r.Batching.For(local); b != nil {
		if err := b.Add(ctx, rec); err != nil {
			return Result{Err: err}
		}
		return Result{Settled: s}
	}
	if r.Held.Holds(r.Method.Steps, step, local) {
		r.Held.Hold(rec)
		return Result{Settled: s}
	}
	if err := r.Journal.RecordStep(durable(ctx), rec); err != nil {
		return Result{Err: err}
	}
	return Result{Settled: s}
}

// Seal signs and stores a unit's receipt and returns its journal record.
func (r *Run) Seal(step *pkg.Step, local string, body receipt.Body, status contract.StepStatus, output any, failure *contract.ErrorBody, children []receipt.ChildRef) (*Settled, *journal.Step, error) {
	body.Outcome = map[contract.StepStatus]seal.Outcome{
		contract.StepSuccess: seal.OutcomeCompleted,
		contract.StepFailed:  seal.OutcomeFailed,
		contract.StepRefused: seal.OutcomeRefused,
		contract.StepSkipped: seal.OutcomeSkipped,
	}[status]
	body.Children = NonEmptyRefs(children)
	var kept map[string]artifactstore.Descriptor
	if status == contract.StepSuccess {
		// A packet output is checked and kept before the unit is sealed:
		// one that does not meet its packet fails the unit.
		if kept, failure = r.keepPackets(step, local, output, &body); failure != nil {
			status, output, body.Outcome = contract.StepFailed, nil, seal.OutcomeFailed
		}
	}
	// The record keeps what the tree's plugins answered so far, this
	// unit's answer included (its dispatch charged it): the bound on those
	// bytes survives a crash, less the units then in flight.
	rec := &journal.Step{RunID: r.ID, Address: local, StepID: step.ID, Status: status, Answered: r.Tree.Budget.Answered.Load()}
	if failure != nil {
		failure.Message = r.Sealer.Taint.Scrub(failure.Message)
		body.ErrorCode = failure.Code
		rec.Error, _ = json.Marshal(failure)
		// The detail may quote what a tool printed (a failed process's
		// output): the run's record gets it through the taint set too.
		rec.Error = r.Sealer.Taint.ScrubJSON(rec.Error)
	}
	if status == contract.StepSuccess {
		raw, err := canon.Canonical(output)
		if err != nil {
			return nil, nil, err
		}
		raw = r.Sealer.ScrubResult(raw)
		body.OutputDigest = canon.DigestBytes(raw)
		rec.Output = raw
	}
	body.SealedAt = receipt.FormatTime(r.Clock())
	sealed, raw, err := r.Sealer.Sign(body)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Sealer.Store.Put(sealed, raw); err != nil {
		return nil, nil, err
	}
	ref := receipt.SealedRef(sealed, raw)
	rec.ReceiptID = sealed.ID
	rec.ChildRef, _ = json.Marshal(ref)
	return &Settled{Status: status, Output: output, Failure: failure, ReceiptID: sealed.ID, Ref: ref, Artifacts: kept}, rec, nil
}

// NonEmptyRefs are the refs that name a sealed receipt.
func NonEmptyRefs(refs []receipt.ChildRef) []receipt.ChildRef {
	var out []receipt.ChildRef
	for _, r := range refs {
		if r.ReceiptID != "" {
			out = append(out, r)
		}
	}
	return out
}

// Given keeps, by a unit's address, the artifacts a unit was given by
// reference in its input (a script's call passes them, as a
// []receipt.Artifact), for the unit's receipt (StepBody). Calls of a script
// run at once, so it is a sync.Map; the zero value holds none.
type Given struct{ sync.Map }

// Of are the artifacts a unit at local was given.
func (g *Given) Of(local string) []receipt.Artifact {
	if v, ok := g.Load(local); ok {
		return slices.Clone(v.([]receipt.Artifact))
	}
	return nil
}
