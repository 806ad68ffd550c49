package connector

import (
	"strconv"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// A connector plugin's credential is read from its description: one name
// across its operations is bound; none, or several, is refused by code.
func TestPluginCredentialFromDescription(t *testing.T) {
	info := func(creds ...[]string) *sdk.Info {
		i := &sdk.Info{Name: "acme"}
		for n, c := range creds {
			i.Capabilities = append(i.Capabilities, sdk.Definition{ID: "acme/op" + strconv.Itoa(n), Credentials: c})
		}
		return i
	}
	if v, err := PluginCredential(info([]string{"ACME_TOKEN"}, nil, []string{"ACME_TOKEN"}), "acme"); v != "ACME_TOKEN" || err != nil {
		t.Fatalf("one declared credential: %q %v", v, err)
	}
	for _, c := range []struct {
		info *sdk.Info
		code errcode.Code
	}{
		{info(nil, nil), "connector_credential_unsupported"},
		{info([]string{"A"}, []string{"B"}), errcode.ConnectorCredentialAmbiguous},
	} {
		if _, err := PluginCredential(c.info, "acme"); contract.CodeOf(err) != c.code {
			t.Errorf("want %s, got %v", c.code, err)
		}
	}
}
