package run

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// wire is a connector.request stub: every request is answered 200 with an
// id, and each send is counted.
type wire struct{ s *stub }

func (wire) Info() sdk.Info {
	return sdk.Info{Name: "wire", Version: "0.0.1", Capabilities: []sdk.Definition{{
		ID: "wire.send", Summary: "send", Effect: sdk.EffectWrite, Approval: sdk.ApprovalNone,
		Roles: []string{sdk.RoleConnectorRequest},
	}}}
}

func (w wire) Invoke(_ context.Context, call *sdk.Call) *sdk.Result {
	w.s.count(call.Capability)
	return sdk.OK([]byte(`{"status":200,"body":{"id":"m1"}}`), nil)
}

// Two fan-out items that write under one idempotency key and read its
// record at the same moment never both send: the attempt is a
// compare-and-set, and the loser is refused idempotency_key_in_flight.
func TestOneKeyNeverSendsTwiceUnderContention(t *testing.T) {
	k, s := stubKernel(t)
	k.engine.Host = newStubHost(t, s, conn{s}, wire{s})
	dir := writeSkill(t, k, "s", `methods:
  m:
    inputs:
      items: { type: array, required: true }
      key: { type: string, required: true }
      v: { type: string, required: true }
    steps:
      - id: put
        for_each: $input.items
        concurrency: 2
        operation: box/put
        idempotency_key: $input.key
        inputs: { v: $input.v }
`, map[string]string{"connectors/box/connector.yaml": `id: box
version: 1.0.0
base_url: http://127.0.0.1:9
operations:
  put:
    summary: Put one item.
    verb: write
    request: { method: POST, path: /items, body: { v: $input.v } }
    inputs:
      v: { type: string, required: true }
    outputs:
      id: { type: string }
`})
	// Both items read the key's record before either begins its attempt.
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	k.engine.SetHook(func(point string) {
		if point != "operation_key_read" {
			return
		}
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(10 * time.Second):
		}
	})
	env := runSkill(t, k, dir, "m", `{"items":[1,2],"key":"k1","v":"x"}`, `{"effects":"allow"}`)
	if arrived != 2 {
		t.Fatalf("both items must reach the key's record concurrently, %d did", arrived)
	}
	if n := s.calls["wire.send"]; n != 1 {
		t.Fatalf("one key, one intent: the request left %d times", n)
	}
	if errCode(env) != "idempotency_key_in_flight" {
		t.Fatalf("the item that lost the key is refused %s, got %s %q", errcode.IdempotencyKeyInFlight, env.Outcome, errCode(env))
	}
}
