package native

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// ObservedAtSchema names control.observed_at's answer.
const ObservedAtSchema = "runx.observed_at.v1"

var observedAtDefinition = sdk.Definition{
	ID:           "control.observed_at",
	Summary:      "This native invocation's observed_at: when runx admitted the call, on the run's own clock (fixed under runx test). It reads no ambient clock and attests to no provider's event time.",
	InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`),
	OutputSchema: json.RawMessage(`{"type":"object","required":["schema","observed_at"],"properties":{"schema":{"const":"runx.observed_at.v1"},"observed_at":{"type":"string"}}}`),
	Effect:       sdk.EffectNone,
	Approval:     sdk.ApprovalNone,
	Idempotent:   true,
}

// observedAtTool forwards the invocation's admitted time, taken from the
// kernel's clock as every receipt's times are, so a deterministic test run
// sees a fixed value.
func observedAtTool(_ context.Context, c *Call, inputs map[string]any) (any, *contract.ErrorBody) {
	if bad := onlyInputs("control.observed_at", inputs); bad != nil {
		return nil, bad
	}
	return map[string]any{"schema": ObservedAtSchema, "observed_at": receipt.FormatTime(c.Run.Now())}, nil
}
