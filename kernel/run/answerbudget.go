package run

import (
	"context"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/run/turn"
)

// DefaultMaxPluginAnswerBytes bounds the bytes the plugins of one run (its
// tree: children share it) may answer with over the run's whole life:
// output, evidence and message of every call. Each unit's record, the root's
// pause and stop keep the count; a resume goes on from it (resumeAnswered). One call
// is bounded by its own ceiling (at most sdk.MaxPayloadBytes); this bounds
// their sum, so a fan-out of calls each near its ceiling cannot hold the
// driver's memory and the run's records without limit.
// RUNX_MAX_PLUGIN_ANSWER_BYTES narrows or widens it. Each call's room and
// charge are kernel/run/step's (step.AnswerRoom, step.ChargeAnswer).
const DefaultMaxPluginAnswerBytes = 1 << 30

// answerLimit is the run's bound on plugin answers.
func (e *engine) answerLimit() int64 {
	if e.MaxPluginAnswerBytes > 0 {
		return e.MaxPluginAnswerBytes
	}
	return DefaultMaxPluginAnswerBytes
}

// resumeAnswered takes up the count of answered bytes the tree kept at its
// last pause, stop or recorded unit, so a resume does not restart at zero.
func (rc *runCtx) resumeAnswered(ctx context.Context) error {
	n, err := rc.e.Journal.AnsweredBytes(durable(ctx), rc.rec.RunID)
	if err != nil {
		return err
	}
	rc.Budget.Answered.Store(n)
	return nil
}

// repause puts rc's run back to waiting once a turn's call used a
// decision, and keeps what the tree's plugins have answered so far on its
// root's run.paused event, as a pause does (finish.go): the bytes the call
// added count at the next resume or call rather than being forgotten. A
// child's run is re-paused as before; the root then keeps the count in one
// more re-pause on what it waits on.
func (rc *runCtx) repause(ctx context.Context) error {
	j := rc.e.Journal
	root := rc.rec
	if root.ParentRunID != "" {
		if err := turn.Repause(ctx, j, root.RunID); err != nil {
			return err
		}
		for root.ParentRunID != "" {
			var err error
			if root, err = j.GetRun(durable(ctx), root.ParentRunID); err != nil {
				return err
			}
		}
	}
	reqs, err := j.Asks().Requests(durable(ctx), root.RunID)
	if err != nil {
		return err
	}
	var open []*journal.Request
	for _, r := range reqs {
		if r.State == journal.RequestOpen {
			open = append(open, r)
		}
	}
	return j.PauseRoot(context.WithoutCancel(durable(ctx)), root.RunID, open, rc.Budget.Answered.Load())
}
