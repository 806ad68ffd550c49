package run

import (
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
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

// A provider's answer holding a field with a secret's name is refused,
// naming the field and never its value, for a manifest operation's answer
// and a connector plugin's alike; the same answer without it passes.
func TestProviderAnswerSecretFieldRefused(t *testing.T) {
	mo := &manifestOp{connector: &pkg.Connector{ID: "forge"}, op: &pkg.ConnectorOperation{Name: "token.mint"}, def: &sdk.Definition{ID: "forge/token.mint"}}
	leaky := `{"status":200,"body":{"id":"t1","grant":{"refresh_token":"rt-secret-value"}}}`
	if _, failure := connectorAnswer("mint", mo, []byte(leaky)); failure == nil || failure.Code != CodeProviderOutputSecret ||
		!strings.Contains(failure.Message, "/grant/refresh_token") || strings.Contains(failure.Message, "rt-secret-value") {
		t.Fatalf("manifest answer: %+v", failure)
	}
	if out, failure := connectorAnswer("mint", mo, []byte(`{"status":200,"body":{"id":"t1","next_page_token":"n"}}`)); failure != nil || out == nil {
		t.Fatalf("a clean answer: %v %+v", out, failure)
	}
	decode := decodeProviderOutput("acme/session.open")
	if _, failure := decode([]byte(`{"session":{"clientSecret":"cs-value"}}`), &receipt.Body{}); failure == nil || failure.Code != CodeProviderOutputSecret {
		t.Fatalf("plugin answer: %+v", failure)
	}
	if _, failure := decode([]byte(`{"session":{"id":"s1"}}`), &receipt.Body{}); failure != nil {
		t.Fatalf("a clean plugin answer: %+v", failure)
	}
}
