package testrun

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run"
)

// turnWorker makes a worked turn's calls through the open turn, as an
// attached agent would through turn_call: each is admitted against the
// turn's declared calls under the run's authority, carried out and
// recorded. A call that is refused, or returns what its expect does not
// match, fails the test and is named in its error.
func turnWorker(k *run.Kernel, runID string) func(context.Context, contract.Request, string, *pkg.TestTurn) []string {
	return func(ctx context.Context, r contract.Request, key string, turn *pkg.TestTurn) []string {
		for i, c := range turn.Calls {
			label := fmt.Sprintf("host.turns.%s call %d (%s)", key, i+1, c.Tool)
			var input []byte
			if c.Input != nil {
				var err error
				if input, err = json.Marshal(c.Input); err != nil {
					return []string{fmt.Sprintf("%s: input: %v", label, err)}
				}
			}
			res, err := k.TurnCall(ctx, run.TurnCallRequest{RunID: runID, Turn: r.Address, Tool: c.Tool, Input: input})
			if err != nil {
				return []string{fmt.Sprintf("%s: %v", label, err)}
			}
			if c.Expect == nil {
				continue
			}
			raw, err := json.Marshal(res)
			if err != nil {
				return []string{fmt.Sprintf("%s: %v", label, err)}
			}
			var got any
			if err := json.Unmarshal(raw, &got); err != nil {
				return []string{fmt.Sprintf("%s: %v", label, err)}
			}
			var msg string
			if c.Expect.Mode == pkg.CompareExact {
				msg = matchExact(c.Expect.Value, got)
			} else {
				msg = matchSubset("", normalize(c.Expect.Value), got)
			}
			if msg != "" {
				return []string{fmt.Sprintf("%s returned what its expect does not match: %s", label, msg)}
			}
		}
		return nil
	}
}
