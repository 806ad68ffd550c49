package native

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// runReadDefinition is run.read's one typed description: what `runx tool
// inspect run.read` shows and what a turn's tool list offers.
var runReadDefinition = sdk.Definition{
	ID:      "run.read",
	Summary: "Read a run's record (runx.run_read.v1): its state, what it waits on, what it was answered, its steps and its events after a cursor. Without run_id it reads the root of the calling run's tree.",
	InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{` +
		`"run_id":{"type":"string","description":"the run to read; default: the root of the calling run"},` +
		`"after":{"type":"string","description":"a cursor a previous read returned; only later events are returned"}}}`),
	OutputSchema: json.RawMessage(`{"type":"object","required":["schema","run_id","state","waiting","answered","steps","events","cursor"]}`),
	Effect:       sdk.EffectRead,
	Approval:     sdk.ApprovalNone,
	Idempotent:   true,
}

// runReadTool is run.read: a run's read model; without run_id, the root of
// the calling run's tree.
func runReadTool(ctx context.Context, c *Call, inputs map[string]any) (any, *contract.ErrorBody) {
	runID, _ := inputs["run_id"].(string)
	if runID == "" {
		runID = c.Run.RunID()
		for parentID := c.Run.ParentRunID(); parentID != ""; {
			parent, err := c.Run.Records().Journal.GetRun(durable(ctx), parentID)
			if err != nil {
				return nil, contract.BodyOf(err)
			}
			runID, parentID = parent.RunID, parent.ParentRunID
		}
	}
	after, _ := inputs["after"].(string)
	read, err := c.Run.ReadRun(ctx, runID, after)
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

// durable is the context run records are read under: a stop request
// admits no further step, but a tool already answering reads what it needs.
func durable(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
