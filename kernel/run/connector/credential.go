package connector

import (
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// CodeConnectorCredentialAmbiguous refuses `runx connector use` for a
// connector plugin that declares more than one credential: a binding names
// one source for one credential, and runx will not deliver one value under
// several names.
const CodeConnectorCredentialAmbiguous = "connector_credential_ambiguous"

// PluginCredential is the one credential info declares for connector.
func PluginCredential(info *sdk.Info, connector string) (string, error) {
	seen := map[string]bool{}
	var names []string
	for i := range info.Capabilities {
		def := &info.Capabilities[i]
		if sdk.PluginOf(def.ID) != connector {
			continue
		}
		for _, n := range def.Credentials {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	switch len(names) {
	case 0:
		return "", contract.Errorf("connector_credential_unsupported", "connector plugin %s declares no credential, so there is nothing to bind", connector)
	case 1:
		return names[0], nil
	}
	return "", contract.Errorf(CodeConnectorCredentialAmbiguous, "connector plugin %s declares %d credentials (%s); runx connector use binds a connector's one credential: export each variable instead", connector, len(names), strings.Join(names, ", "))
}
