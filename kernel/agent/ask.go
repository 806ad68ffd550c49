package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run"
)

// askShape is ask_human's input in the one form the driver sends it: the
// form its question request records, so a later drive can make the same
// call again (same call_id, same input digest) to collect the person's
// answer.
type askShape struct {
	Reason    string          `json:"reason,omitempty"`
	Questions []*pkg.Question `json:"questions,omitempty"`
}

// normalAsk rewrites an ask_human input into askShape; one that does not
// decode goes as it is, for TurnCall to refuse with its own code.
func normalAsk(raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var in askShape
	if dec.Decode(&in) != nil {
		return raw
	}
	out, err := json.Marshal(in)
	if err != nil {
		return raw
	}
	return out
}

// collectAsks makes each ask_human call this driver opened, and a person
// has since answered, again with its call_id, so its answer settles into
// the turn. It reports whether any call still waits on a person, and
// whether any was collected.
func (d *Driver) collectAsks(ctx context.Context, t *run.OpenTurn) (waiting, collected bool, err error) {
	var pending []run.TurnCallRecord
	for _, c := range t.Calls {
		if c.Status == contract.CallPending {
			pending = append(pending, c)
		}
	}
	if len(pending) == 0 {
		return false, false, nil
	}
	events, err := d.Kernel.RunEvents(ctx, t.RunID, 0)
	if err != nil {
		return false, false, err
	}
	asked := map[string]json.RawMessage{}
	for _, ev := range events {
		if ev.Stream != eventStream || ev.Type != eventAsked {
			continue
		}
		var a askedEvent
		if json.Unmarshal(ev.Data, &a) == nil && a.Turn == t.Address {
			asked[a.CallID] = a.Input
		}
	}
	for _, c := range pending {
		if c.Tool != run.AskHuman || !strings.HasPrefix(c.CallID, callIDPrefix) {
			waiting = true
			continue
		}
		input, ok := asked[c.CallID]
		if !ok {
			waiting = true
			continue
		}
		res, err := d.Kernel.TurnCall(ctx, run.TurnCallRequest{RunID: t.RunID, Turn: t.Address, Tool: c.Tool, Input: input, CallID: c.CallID})
		if err != nil || res.Status == contract.CallPending {
			waiting = true
			continue
		}
		collected = true
	}
	return waiting, collected, nil
}

// callIDPrefix marks the call_ids this driver pins.
const callIDPrefix = "agent-"

// The event the driver records for each ask_human call it makes: the
// question (never a credential: it is scrubbed) and the call_id, so the
// drive that follows the person's answer can collect it.
const (
	eventStream = "agent"
	eventAsked  = "agent.ask_human"
)

type askedEvent struct {
	Turn   string          `json:"turn"`
	CallID string          `json:"call_id"`
	Input  json.RawMessage `json:"input"`
}

// recordAsk records an ask_human call before it is made.
func (d *Driver) recordAsk(ctx context.Context, t *run.OpenTurn, callID string, input json.RawMessage) error {
	return d.Kernel.RecordEvent(ctx, t.RunID, eventStream, eventAsked, askedEvent{Turn: t.Address, CallID: callID, Input: input})
}
