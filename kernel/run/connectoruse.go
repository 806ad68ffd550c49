package run

import (
	"context"
	"errors"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/sdk/errcode"
)

// PluginCredential is the one credential a connector plugin's description
// declares (sdk Definition.Credentials over the capabilities it serves as
// <connector>/<operation>), which `runx connector use <connector>` binds.
// The plugin is found as any capability's plugin is (first party, or
// installed and pinned), and its description alone says what it needs: the
// kernel knows no connector by name. A plugin that is not there is
// connector_not_found; one that declares no credential is
// connector_credential_unsupported; one that declares several is
// connector_credential_ambiguous.
func (k *Kernel) PluginCredential(ctx context.Context, name string) (string, error) {
	if strings.Contains(name, "/") {
		// A namespaced connector is a manifest's; no plugin is so named.
		return "", contract.Errorf(errcode.ConnectorNotFound, "no connector %s is declared: a namespaced connector is a connector.yaml in a package or .runx/added-connectors", name)
	}
	info, err := k.host.Info(ctx, name)
	var he *host.Error
	if errors.As(err, &he) && he.Code == errcode.PluginNotFound {
		return "", contract.Errorf(errcode.ConnectorNotFound, "no connector %s is declared: no connector.yaml names it and no plugin runx-plugin-%s is installed (%s)", name, name, he.Message)
	}
	if err != nil {
		return "", err
	}
	return connector.PluginCredential(info, name)
}
