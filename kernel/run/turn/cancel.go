package turn

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/sdk/errcode"
)

// ErrCallCancelled is the cause a cancelled turn call's context carries.
var ErrCallCancelled = errors.New("call cancelled by its host")

// CallCancel is how call_cancel found a call.
type CallCancel struct {
	Call string `json:"call"`
	// State is executing (the cancel was delivered to a call in flight),
	// or the status a settled call was recorded with.
	State     contract.CallStatus `json:"state"`
	Cancelled bool                `json:"cancel_delivered"`
	ReceiptID string              `json:"receipt_id,omitempty"`
	Message   string              `json:"message"`
}

// Cancel cancels one turn call of a run by its address (<turn>/<n>, below
// the root with its child run's place first, as answer/0#report/1) and
// answers at once with how it stands. A read in flight is stopped (its
// plugin is asked to cancel it, the engine's cancelWatch) and the call
// settles cancelled. A capability call that may change something runs to
// its end and settles as it actually ended, the cancel recorded beside it,
// so the record never says an effect did not happen when it did. A skill
// call's cancel reaches its child run at every depth: no later step
// starts, the child seals killed with the reason cancelled, and the call
// settles cancelled when the child committed no effect, otherwise failed
// child_killed. A settled call is past cancelling.
func Cancel(ctx context.Context, j *journal.Journal, runID, address string) (*CallCancel, error) {
	durable := context.WithoutCancel(ctx)
	cut := strings.LastIndex(address, "/")
	if cut <= 0 {
		return nil, contract.Errorf(errcode.CallUnknown, "%q is not a call's address; a turn's call is <turn>/<n>, as draft/0 is turn draft's first call", address)
	}
	if _, err := strconv.Atoi(address[cut+1:]); err != nil {
		return nil, contract.Errorf(errcode.CallUnknown, "%q is not a call's address; a turn's call is <turn>/<n>, as draft/0 is turn draft's first call", address)
	}
	claims.mu.Lock()
	rc := claims.forRun(runID)
	cancel := rc.cancels[address]
	claims.mu.Unlock()
	if cancel != nil {
		cancel(ErrCallCancelled)
		if err := j.AppendEvent(durable, runID, "calls", "call.cancel_requested", map[string]any{"address": address}); err != nil {
			return nil, err
		}
		return &CallCancel{Call: address, State: contract.CallExecuting, Cancelled: true,
			Message: "the cancel reached the call: a read in flight stops, nothing more of it starts, and an effect it already dispatched settles as it actually ends"}, nil
	}
	// Below the root a call is addressed with its child run's place first
	// (answer/0#report/1): its record is the child's.
	at, local := runID, address
	if i := strings.LastIndex(address, "#"); i >= 0 {
		child, err := runAtPath(ctx, j, runID, address[:i])
		if err != nil {
			return nil, err
		}
		if child == "" {
			return nil, contract.Errorf(errcode.CallUnknown, "run %s holds no child run at %q; turn_list shows the turns it waits on", runID, address[:i])
		}
		at, local = child, address[i+1:]
	}
	steps, err := j.Steps(durable, at)
	if err != nil {
		return nil, err
	}
	if s := steps[local]; s != nil {
		return &CallCancel{Call: address, State: contract.CallStatus(s.Status), ReceiptID: s.ReceiptID, Message: "the call had already settled; nothing was cancelled"}, nil
	}
	return nil, contract.Errorf(errcode.CallUnknown, "run %s holds no call at %q; turn_status lists the calls a turn made", runID, address)
}

// runAtPath finds the run of a tree at a place under its root (answer/0,
// or answer/0#report/0 below it), or "" when none is there.
func runAtPath(ctx context.Context, j *journal.Journal, rootID, path string) (string, error) {
	at := rootID
	for _, place := range strings.Split(path, "#") {
		children, err := j.Children(context.WithoutCancel(ctx), at)
		if err != nil {
			return "", err
		}
		next := ""
		for _, c := range children {
			if c.ParentAddress == place {
				next = c.RunID
			}
		}
		if next == "" {
			return "", nil
		}
		at = next
	}
	return at, nil
}
