package run

import (
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg"
)

// Sending a write again is safe only while its provider honours the key:
// a declared idempotency header, within its window from the first send.
func TestResendSafeWithinIdempotencyWindow(t *testing.T) {
	sent := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	id := &pkg.OperationIdempotency{Header: "Idempotency-Key", WindowSeconds: 3600}
	for _, tc := range []struct {
		name string
		id   *pkg.OperationIdempotency
		at   time.Time
		want bool
	}{
		{"within the window", id, sent.Add(59 * time.Minute), true},
		{"past the window", id, sent.Add(61 * time.Minute), false},
		{"no deduplication declared", nil, sent.Add(time.Minute), false},
	} {
		if got := resendSafe(tc.id, sent.Format(time.RFC3339Nano), tc.at); got != tc.want {
			t.Errorf("%s: resendSafe = %v, want %v", tc.name, got, tc.want)
		}
	}
	if resendSafe(id, "", sent) {
		t.Error("an attempt with no recorded send time is not known to be within the window")
	}
}

// The provider key binds the caller's key to the connector, operation and
// rendered target: another target or caller key is another key; another
// payload under the same target is the same key.
func TestProviderKey(t *testing.T) {
	c := &pkg.Connector{ID: "forge"}
	op := &pkg.ConnectorOperation{Name: "post.create", Target: "boards/{board}", Inputs: []*pkg.InputSpec{{Name: "board", Type: "string"}, {Name: "title", Type: "string"}}}
	mo := &manifestOp{connector: c, op: op}
	k := providerKey(mo, map[string]any{"board": "general", "title": "a"}, "k1")
	if k != providerKey(mo, map[string]any{"board": "general", "title": "b"}, "k1") {
		t.Error("a payload revision must reach the provider under the same key")
	}
	if k == providerKey(mo, map[string]any{"board": "news", "title": "a"}, "k1") {
		t.Error("another target must be another key")
	}
	if k == providerKey(mo, map[string]any{"board": "general", "title": "a"}, "k2") {
		t.Error("another caller key must be another key")
	}
	op2 := &pkg.ConnectorOperation{Name: "post.edit", Target: op.Target, Inputs: op.Inputs}
	if k == providerKey(&manifestOp{connector: c, op: op2}, map[string]any{"board": "general"}, "k1") {
		t.Error("another operation must be another key")
	}
}
