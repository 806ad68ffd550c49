package run

import (
	"encoding/json"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// dispatch is what one step sends to a capability and how it is recorded.
type dispatch struct {
	capability string
	execution  string
	input      any
	timeout    time.Duration
	maxOutput  int64
	// def is the capability's description, which everything about the call
	// (lock, reach, recovery) derives from.
	def *sdk.Definition
	// commandRole marks a command step's process, whose input carries its
	// environment.
	commandRole bool
	// interpret turns the capability's raw output into the step's output.
	interpret func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody)
	// idempotencyKey is the provider key a connector write is sent under.
	idempotencyKey string
	// evidence, when set, sees the plugin's evidence of every answer.
	evidence func(json.RawMessage)
}

// decodeOutput reads a capability's answer as the step's output: JSON.
func decodeOutput(raw []byte, _ *receipt.Body) (any, *contract.ErrorBody) {
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the capability answered with output that is not JSON"}
	}
	return out, nil
}

// stepTimeout is how long a step's call may take: its timeout_seconds, or
// def for its kind.
func stepTimeout(step *pkg.Step, def time.Duration) time.Duration {
	if step.TimeoutSeconds > 0 {
		return time.Duration(step.TimeoutSeconds) * time.Second
	}
	return def
}
