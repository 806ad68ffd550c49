package run

import (
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
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

// A provider's answer holding a field with a secret's name is refused,
// naming the field and never its value, for a manifest operation's answer
// and a connector plugin's alike; the same answer without it passes.
func TestProviderAnswerSecretFieldRefused(t *testing.T) {
	mo := &connector.ManifestOp{Connector: &pkg.Connector{ID: "forge"}, Op: &pkg.ConnectorOperation{Name: "token.mint"}, Def: &sdk.Definition{ID: "forge/token.mint"}}
	leaky := `{"status":200,"body":{"id":"t1","grant":{"refresh_token":"rt-secret-value"}}}`
	if _, failure := connectorAnswer("mint", mo, []byte(leaky)); failure == nil || failure.Code != connector.CodeProviderOutputSecret ||
		!strings.Contains(failure.Message, "/grant/refresh_token") || strings.Contains(failure.Message, "rt-secret-value") {
		t.Fatalf("manifest answer: %+v", failure)
	}
	if out, failure := connectorAnswer("mint", mo, []byte(`{"status":200,"body":{"id":"t1","next_page_token":"n"}}`)); failure != nil || out == nil {
		t.Fatalf("a clean answer: %v %+v", out, failure)
	}
	decode := decodeProviderOutput("acme/session.open")
	if _, failure := decode([]byte(`{"session":{"clientSecret":"cs-value"}}`), &receipt.Body{}); failure == nil || failure.Code != connector.CodeProviderOutputSecret {
		t.Fatalf("plugin answer: %+v", failure)
	}
	if _, failure := decode([]byte(`{"session":{"id":"s1"}}`), &receipt.Body{}); failure != nil {
		t.Fatalf("a clean plugin answer: %+v", failure)
	}
}
