package run

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// CodeConnectorNotFound refuses binding a connector neither a manifest nor a
// plugin declares.
const CodeConnectorNotFound = "connector_not_found"

// CodeConnectorCredentialAmbiguous refuses `runx connector use` for a
// connector plugin that declares more than one credential: a binding names
// one source for one credential, and runx will not deliver one value under
// several names.
const CodeConnectorCredentialAmbiguous = "connector_credential_ambiguous"

// PluginCredential is the one credential a connector plugin's description
// declares (sdk Definition.Credentials over the capabilities it serves as
// <connector>/<operation>), which `runx connector use <connector>` binds.
// The plugin is found as any capability's plugin is (first party, or
// installed and pinned), and its description alone says what it needs: the
// kernel knows no connector by name. A plugin that is not there is
// connector_not_found; one that declares no credential is
// connector_credential_unsupported; one that declares several is
// connector_credential_ambiguous.
func (k *Kernel) PluginCredential(ctx context.Context, connector string) (string, error) {
	if strings.Contains(connector, "/") {
		// A namespaced connector is a manifest's; no plugin is so named.
		return "", contract.Errorf(CodeConnectorNotFound, "no connector %s is declared: a namespaced connector is a connector.yaml in a package or .runx/added-connectors", connector)
	}
	info, err := k.Host.Info(ctx, connector)
	var he *host.Error
	if errors.As(err, &he) && he.Code == host.CodePluginNotFound {
		return "", contract.Errorf(CodeConnectorNotFound, "no connector %s is declared: no connector.yaml names it and no plugin runx-plugin-%s is installed (%s)", connector, connector, he.Message)
	}
	if err != nil {
		return "", err
	}
	return pluginCredential(info, connector)
}

// pluginCredential is the one credential info declares for connector.
func pluginCredential(info *sdk.Info, connector string) (string, error) {
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
