package connector

import (
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
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

// DeclaredCredentials resolves each credential a capability's description
// names, for the connector its plugin is: the binding `runx connector use`
// recorded, the variable itself, or the stored secret, exactly as a
// manifest connector's credential is resolved. So a third-party connector
// plugin is delivered its credential as plugins/http is a manifest's. The
// values travel only in the invocation's credentials, where the plugin
// host adds them to the taint set before they leave.
func DeclaredCredentials(resolver *credential.Resolver, def *sdk.Definition) (map[string]string, error) {
	connector := sdk.PluginOf(def.ID)
	out := make(map[string]string, len(def.Credentials))
	for _, name := range def.Credentials {
		v, err := resolver.Resolve(connector, name)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}
