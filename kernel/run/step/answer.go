package step

import (
	"errors"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// What the plugins of one run's tree answer is bounded as a whole
// (kernel/run's DefaultMaxPluginAnswerBytes, RUNX_MAX_PLUGIN_ANSWER_BYTES):
// the bound and the count are the tree's Budget.

// AnswerTooLarge is the failure of a unit the tree's answer bound stops.
func AnswerTooLarge(b *runstate.Budget, stepID string) *contract.ErrorBody {
	return &contract.ErrorBody{Code: errcode.PluginAnswerTooLarge, Message: fmt.Sprintf(
		"step %s: the run's plugins would answer more than %d bytes, the bound on what one run's plugins answer (RUNX_MAX_PLUGIN_ANSWER_BYTES)", stepID, b.AnswerLimit)}
}

// AnswerRoom is the most a call may answer now: its own ceiling (0 means
// the transport's), narrowed to what the tree has left. ok is false when
// nothing is left, and the call must not be sent.
func AnswerRoom(b *runstate.Budget, max int64) (int64, bool) {
	if max <= 0 || max > sdk.MaxPayloadBytes {
		max = sdk.MaxPayloadBytes
	}
	left := b.AnswerLimit - b.Answered.Load()
	if left <= 0 {
		return 0, false
	}
	return min(max, left), true
}

// ChargeAnswer counts what a call answered against the tree's bound. An
// answer that arrived is the call's, recorded as it is (its effect may have
// happened), and the next call finds no room; a call's output-too-large is
// the tree's bound speaking when its room was narrowed to what the tree had
// left (narrowed), and is named as that bound.
func ChargeAnswer(b *runstate.Budget, stepID string, res *sdk.Result, err error, narrowed bool) *contract.ErrorBody {
	var he *host.Error
	if err != nil && narrowed && errors.As(err, &he) && he.Code == errcode.PluginOutputTooLarge {
		b.Answered.Store(b.AnswerLimit)
		return AnswerTooLarge(b, stepID)
	}
	if err == nil && res != nil {
		b.Answered.Add(int64(len(res.Output) + len(res.Evidence) + len(res.Message) + len(res.Code)))
	}
	return nil
}
