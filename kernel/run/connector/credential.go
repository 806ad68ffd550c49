package connector

import (
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

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
		return "", contract.Errorf(errcode.ConnectorCredentialUnsupported, "connector plugin %s declares no credential, so there is nothing to bind", connector)
	case 1:
		return names[0], nil
	}
	return "", contract.Errorf(errcode.ConnectorCredentialAmbiguous, "connector plugin %s declares %d credentials (%s); runx connector use binds a connector's one credential: export each variable instead", connector, len(names), strings.Join(names, ", "))
}
