package run

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/errcode"
)

// resumeSealed answers a resume of a sealed run: one that brings nothing, or
// only answers the run took, gets what it sealed; anything else is refused.
func (e *engine) resumeSealed(ctx context.Context, rec *journal.Run, doc *contract.ResumeDocument) (*contract.SkillRun, error) {
	if entriesOf(doc) > 0 || len(doc.StandingApprovals) > 0 {
		st, err := e.treeState(ctx, rec.RunID)
		if err != nil {
			return nil, err
		}
		for _, lane := range []struct {
			name    string
			entries map[string]*contract.ResumeEntry
		}{{contract.LaneAnswers, doc.Answers}, {contract.LaneApprovals, doc.Approvals}} {
			for addr, entry := range lane.entries {
				taken, ok := st.decisions[addr]
				value, err := entryValue(lane.name, orEntry(entry))
				if err != nil || !ok || !taken.d.Used || taken.d.Lane != lane.name || taken.d.RequestDigest != entry.RequestDigest || !jsonEqual(taken.d.Value, value) {
					return nil, contract.Errorf(errcode.RunSealed, "run %s already sealed %s; a resume cannot bring it anything new", rec.RunID, rec.Outcome)
				}
			}
		}
		if len(doc.StandingApprovals) > 0 {
			return nil, contract.Errorf(errcode.RunSealed, "run %s already sealed %s; a resume cannot bring it anything new", rec.RunID, rec.Outcome)
		}
	}
	return storedEnvelope(rec)
}

func orEntry(e *contract.ResumeEntry) *contract.ResumeEntry {
	if e == nil {
		return &contract.ResumeEntry{}
	}
	return e
}

func storedEnvelope(rec *journal.Run) (*contract.SkillRun, error) {
	var env contract.SkillRun
	if err := json.Unmarshal(rec.Envelope, &env); err != nil {
		return nil, err
	}
	return &env, nil
}

// close seals a run nobody drives, from its record alone: nothing is bound,
// so a package that changed since the run started never traps it open.
func (e *engine) close(ctx context.Context, rec *journal.Run, doc *contract.ResumeDocument) (*contract.SkillRun, error) {
	if entriesOf(doc) > 0 || len(doc.StandingApprovals) > 0 {
		return nil, contract.Errorf(errcode.ResumeCloseNotAlone, "a close comes alone, with no answers or approvals")
	}
	outcome := doc.Close.Outcome
	if outcome != seal.OutcomeDeclined && outcome != seal.OutcomeSuperseded {
		return nil, contract.Errorf(errcode.ResumeCloseOutcomeInvalid, "a close's outcome is declined or superseded")
	}
	if rec.State == journal.StateSealed {
		return storedEnvelope(rec)
	}
	drv, err := e.Journal.Drive(rec.RunID)
	if err != nil {
		return nil, err
	}
	defer drv.Release()
	// A close works from the run's record alone: a change journal that
	// cannot be settled (damaged, or its plugin failing) is named in the
	// seal rather than trapping the run open.
	var unsettled string
	if err := e.recoverBegun(ctx, rec.RunID, ""); err != nil {
		var rerr *recoverError
		if !errors.As(err, &rerr) || ctx.Err() != nil {
			return nil, err
		}
		unsettled = string(rerr.code) + ": " + rerr.msg
	}
	env, _, err := e.closeRun(ctx, rec, outcome, unsettled)
	return env, err
}

// closeRun seals one run (its open children first) with a host close.
// unsettled, when set, says what recovery could not settle; the seal's
// failure message carries it.
func (e *engine) closeRun(ctx context.Context, rec *journal.Run, closeAs seal.Outcome, unsettled string) (*contract.SkillRun, receipt.ChildRef, error) {
	children, err := e.Journal.Children(durable(ctx), rec.RunID)
	if err != nil {
		return nil, receipt.ChildRef{}, err
	}
	for _, c := range children {
		if c.State != journal.StateSealed {
			if _, _, err := e.closeRun(ctx, c, closeAs, ""); err != nil {
				return nil, receipt.ChildRef{}, err
			}
		}
	}
	steps, err := e.Journal.Steps(durable(ctx), rec.RunID)
	if err != nil {
		return nil, receipt.ChildRef{}, err
	}
	out := &outcome{state: driveSealed, outcome: closeAs, reason: seal.ReasonHostClosed,
		failure: &contract.ErrorBody{Code: errcode.HostClosed, Message: "the host closed run " + rec.RunID + " as " + string(closeAs)}}
	if unsettled != "" {
		out.failure.Message += "; a change a crash left begun could not be settled, so the workspace may hold part of it (" + unsettled + ")"
	}
	var ordered []*journal.Step
	for addr, s := range steps {
		if !strings.Contains(addr, "[") {
			ordered = append(ordered, s)
		}
	}
	sortStepPtrs(ordered)
	for _, s := range ordered {
		st, err := settledOf(s)
		if err != nil {
			return nil, receipt.ChildRef{}, err
		}
		out.trace = append(out.trace, contract.TraceStep{StepID: s.StepID, Skill: "recorded", Status: st.Status, ReceiptID: st.ReceiptID, Error: st.Failure})
		out.refs = append(out.refs, st.Ref)
	}
	rc := &runCtx{e: e, rec: rec, pkg: &pkg.Package{Name: rec.SkillName}, method: &pkg.Method{Name: rec.Method}}
	return e.sealRun(ctx, rc, out)
}

func sortStepPtrs(steps []*journal.Step) {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].Seq < steps[j-1].Seq; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
}
