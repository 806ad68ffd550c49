package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// DefaultMaxPluginAnswerBytes bounds the bytes the plugins of one run (its
// tree: children share it) may answer with over the run's whole life:
// output, evidence and message of every call. The root's pause and stop
// keep the count so far, and a resume goes on from it (resumeAnswered). One call
// is bounded by its own ceiling (at most sdk.MaxPayloadBytes); this bounds
// their sum, so a fan-out of calls each near its ceiling cannot hold the
// driver's memory and the run's records without limit.
// RUNX_MAX_PLUGIN_ANSWER_BYTES narrows or widens it.
const DefaultMaxPluginAnswerBytes = 1 << 30

// answerLimit is the run's bound on plugin answers.
func (e *engine) answerLimit() int64 {
	if e.MaxPluginAnswerBytes > 0 {
		return e.MaxPluginAnswerBytes
	}
	return DefaultMaxPluginAnswerBytes
}

func (rc *runCtx) answerTooLarge(stepID string) *contract.ErrorBody {
	limit := rc.Budget.AnswerLimit
	return &contract.ErrorBody{Code: errcode.PluginAnswerTooLarge, Message: fmt.Sprintf(
		"step %s: the run's plugins would answer more than %d bytes, the bound on what one run's plugins answer (RUNX_MAX_PLUGIN_ANSWER_BYTES)", stepID, limit)}
}

// answerRoom is the most a call may answer now: its own ceiling (0 means
// the transport's), narrowed to what the run has left. ok is false when
// nothing is left, and the call must not be sent.
func (rc *runCtx) answerRoom(max int64) (int64, bool) {
	if max <= 0 || max > sdk.MaxPayloadBytes {
		max = sdk.MaxPayloadBytes
	}
	left := rc.Budget.AnswerLimit - rc.Budget.Answered.Load()
	if left <= 0 {
		return 0, false
	}
	return min(max, left), true
}

// chargeAnswer counts what a call answered against the run's bound. An
// answer that arrived is the call's, recorded as it is (its effect may have
// happened), and the next call finds no room; a call's output-too-large is
// the run's bound speaking when its room was narrowed to what the run had
// left (narrowed), and is named as that bound.
func (rc *runCtx) chargeAnswer(stepID string, res *sdk.Result, err error, narrowed bool) *contract.ErrorBody {
	var he *host.Error
	if err != nil && narrowed && errors.As(err, &he) && he.Code == errcode.PluginOutputTooLarge {
		rc.Budget.Answered.Store(rc.Budget.AnswerLimit)
		return rc.answerTooLarge(stepID)
	}
	if err == nil && res != nil {
		rc.Budget.Answered.Add(int64(len(res.Output) + len(res.Evidence) + len(res.Message) + len(res.Code)))
	}
	return nil
}

// resumeAnswered takes up the count of answered bytes the root kept at its
// last pause or stop, so a resume does not restart the bound at zero.
func (rc *runCtx) resumeAnswered(ctx context.Context) error {
	n, err := rc.e.Journal.AnsweredBytes(durable(ctx), rc.rec.RunID)
	if err != nil {
		return err
	}
	rc.Budget.Answered.Store(n)
	return nil
}
