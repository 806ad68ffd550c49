package run

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// A provider's answer holding a field with a secret's name is refused,
// naming the field and never its value, for a manifest operation's answer
// and a connector plugin's alike; the same answer without it passes.
func TestProviderAnswerSecretFieldRefused(t *testing.T) {
	mo := &connector.ManifestOp{Connector: &pkg.Connector{ID: "forge"}, Op: &pkg.ConnectorOperation{Name: "token.mint"}, Def: &sdk.Definition{ID: "forge/token.mint"}}
	leaky := `{"status":200,"body":{"id":"t1","grant":{"refresh_token":"rt-secret-value"}}}`
	if _, failure := connectorAnswer("mint", mo, []byte(leaky)); failure == nil || failure.Code != errcode.ProviderOutputSecretRefused ||
		!strings.Contains(failure.Message, "/grant/refresh_token") || strings.Contains(failure.Message, "rt-secret-value") {
		t.Fatalf("manifest answer: %+v", failure)
	}
	if out, failure := connectorAnswer("mint", mo, []byte(`{"status":200,"body":{"id":"t1","next_page_token":"n"}}`)); failure != nil || out == nil {
		t.Fatalf("a clean answer: %v %+v", out, failure)
	}
	decode := decodeProviderOutput("acme/session.open")
	if _, failure := decode([]byte(`{"session":{"clientSecret":"cs-value"}}`), &receipt.Body{}); failure == nil || failure.Code != errcode.ProviderOutputSecretRefused {
		t.Fatalf("plugin answer: %+v", failure)
	}
	if _, failure := decode([]byte(`{"session":{"id":"s1"}}`), &receipt.Body{}); failure != nil {
		t.Fatalf("a clean plugin answer: %+v", failure)
	}
}
