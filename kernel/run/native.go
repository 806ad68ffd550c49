package run

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/canon"
)

// nativeTool returns the kernel-owned capability of that id, or nil.
func (e *Engine) nativeTool(id string) func(ctx context.Context, c *nativeCall, inputs map[string]any) (any, *contract.ErrorBody) {
	if t := nativeTools[id]; t != nil {
		return t.fn
	}
	return nil
}

// runReadTool is run.read: a run's read model; without run_id, the root of
// the calling run's tree.
func runReadTool(ctx context.Context, rc *runCtx, inputs map[string]any) (any, *contract.ErrorBody) {
	runID, _ := inputs["run_id"].(string)
	if runID == "" {
		runID = rc.rec.RunID
		for r := rc.rec; r.ParentRunID != ""; {
			parent, err := rc.e.Journal.GetRun(durable(ctx), r.ParentRunID)
			if err != nil {
				return nil, contract.BodyOf(err)
			}
			runID, r = parent.RunID, parent
		}
	}
	after, _ := inputs["after"].(string)
	read, err := rc.e.ReadRun(ctx, runID, after)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	raw, err := json.Marshal(read)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out, nil
}

func mustDigestRaw(raw json.RawMessage) string {
	c, err := canon.CanonicalJSON(raw)
	if err != nil {
		return canon.DigestBytes(raw)
	}
	return canon.DigestBytes(c)
}
