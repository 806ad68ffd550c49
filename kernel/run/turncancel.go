package run

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
)

// ErrCallCancelled is the cause a cancelled turn call's context carries.
var ErrCallCancelled = errors.New("call cancelled by its host")

// CallCancel is how call_cancel found a call.
type CallCancel struct {
	Call string `json:"call"`
	// State is executing (the cancel was delivered to a call in flight),
	// or the status a settled call was recorded with.
	State     string `json:"state"`
	Cancelled bool   `json:"cancel_delivered"`
	ReceiptID string `json:"receipt_id,omitempty"`
	Message   string `json:"message"`
}

// CancelTurnCall cancels one turn call of a root run by its address
// (<turn>/<n>) and answers at once with how it stands. A call in flight is
// cancelled under the kernel's stop rule: no further step or call of it is
// admitted (a skill call's child run stops between steps), and a capability
// call already dispatched runs to its end and settles as it actually ended,
// the cancel recorded beside it, so the record never says an effect did not
// happen when it did. A settled call is past cancelling.
func (k *Kernel) CancelTurnCall(ctx context.Context, runID, address string) (*CallCancel, error) {
	turn, idx, ok := strings.Cut(address, "/")
	if _, err := strconv.Atoi(idx); !ok || err != nil || strings.Contains(turn, "#") {
		return nil, contract.Errorf("call_unknown", "%q is not a call's address; a turn's call is <turn>/<n>, as draft/0 is turn draft's first call", address)
	}
	claims.mu.Lock()
	rc := claims.forRun(runID)
	cancel := rc.cancels[address]
	claims.mu.Unlock()
	if cancel != nil {
		cancel(ErrCallCancelled)
		if err := k.Journal.AppendEvent(durable(ctx), runID, "calls", "call.cancel_requested", map[string]any{"address": address}); err != nil {
			return nil, err
		}
		return &CallCancel{Call: address, State: "executing", Cancelled: true,
			Message: "the cancel reached the call: nothing more of it is admitted, and what it already dispatched settles as it actually ends"}, nil
	}
	steps, err := k.Journal.Steps(durable(ctx), runID)
	if err != nil {
		return nil, err
	}
	if s := steps[address]; s != nil {
		return &CallCancel{Call: address, State: s.Status, ReceiptID: s.ReceiptID, Message: "the call had already settled; nothing was cancelled"}, nil
	}
	return nil, contract.Errorf("call_unknown", "run %s holds no call at %q; turn_status lists the calls a turn made", runID, address)
}
