package run

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/turn"
	"github.com/runxhq/runx/sdk/errcode"
)

// runCtxFor rebuilds the runCtx of a run of a tree from its record, as the
// drive from the root would reach it: a child run holds what the step or
// the turn call that started it held, narrowed as child() narrows it, so a
// call made in a child's turn runs under the child's authority and floor.
func (k *Kernel) runCtxFor(ctx context.Context, runID string) (*runCtx, error) {
	rec, err := k.journal.GetRun(durable(ctx), runID)
	if err != nil {
		return nil, err
	}
	if rec.State == journal.StateSealed {
		return nil, contract.Errorf(errcode.RunSealed, "run %s sealed; its turns take no more calls", rec.RunID)
	}
	// The package as it was when the run started: its package and closure
	// digests both unchanged, so a turn's call runs nothing (a child
	// skill, at any depth) the run was not bound to.
	p, m, err := k.engine.bind(rec)
	if err != nil {
		return nil, err
	}
	var inputs map[string]any
	if err := json.Unmarshal(rec.Inputs, &inputs); err != nil {
		return nil, err
	}
	var rc *runCtx
	if rec.ParentRunID == "" {
		if rc, err = k.engine.root(rec, p, m, inputs); err != nil {
			return nil, err
		}
		if err := rc.resumeAnswered(ctx); err != nil {
			return nil, err
		}
	} else {
		parent, err := k.runCtxFor(ctx, rec.ParentRunID)
		if err != nil {
			return nil, err
		}
		step, level, err := k.startingStep(ctx, parent, rec.ParentAddress)
		if err != nil {
			return nil, err
		}
		rc = newRunCtx(k.engine, rec, p, m, inputs, parent.Budget, level+1, parent.Address(rec.ParentAddress))
		rc.RunDepth, rc.Chain = parent.RunDepth+1, append(slices.Clone(parent.Chain), gate.PackageRef(k.engine.HomeDir, p))
		rc.Base, rc.Standing = authority.ForChild(gate.Effective(parent.Base, parent.method, step)), parent.Standing
		rc.Spend = parent.Spend
	}
	if rc.Decisions, err = k.journal.Asks().Decisions(durable(ctx), rec.RunID); err != nil {
		return nil, err
	}
	if rc.Recorded, err = k.journal.Steps(durable(ctx), rec.RunID); err != nil {
		return nil, err
	}
	return rc, nil
}

// startingStep is the step of parent that started the child at local: a
// skill step (send), or a turn's skill call (answer/0), and its level.
func (k *Kernel) startingStep(ctx context.Context, parent *runCtx, local string) (*pkg.Step, int, error) {
	turnID, _, isCall := strings.Cut(local, "/")
	if !isCall {
		if s := parent.method.Step(local); s != nil && s.Kind == pkg.KindSkill {
			return s, parent.Depth + 1, nil
		}
		return nil, 0, contract.Errorf(errcode.TurnCallChildUnsupported, "the child run at %s was started by a fan-out or script call; this runx makes calls only in the turns of a child a skill step or a turn's skill call started", parent.Address(local))
	}
	s := parent.method.Step(turnID)
	if s == nil {
		return nil, 0, contract.Errorf(errcode.ResumePackageDrift, "package %s no longer has the step of turn %s", parent.pkg.Name, parent.Address(turnID))
	}
	events, err := k.journal.Events(durable(ctx), parent.rec.RunID, 0)
	if err != nil {
		return nil, 0, err
	}
	for _, ev := range events {
		var p turn.Pending
		if ev.Stream == "calls" && ev.Type == turn.EventCallPending && json.Unmarshal(ev.Data, &p) == nil && p.Skill && p.Address == local {
			step, err := turn.CallStep(s, p.Tool)
			if err != nil {
				return nil, 0, err
			}
			return step, parent.Depth + 2, nil
		}
	}
	return nil, 0, contract.Errorf(errcode.JournalRecordInvalid, "run %s records no skill call at %s that started a child", parent.rec.RunID, local)
}
