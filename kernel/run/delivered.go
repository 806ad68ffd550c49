package run

import sdk "github.com/runxhq/runx/sdk/plugin"

// declaredCredentials resolves each credential a capability's description
// names, for the connector its plugin is: the binding `runx connector use`
// recorded, the variable itself, or the stored secret, exactly as a
// manifest connector's credential is resolved. So a third-party connector
// plugin is delivered its credential as plugins/http is a manifest's. The
// values travel only in the invocation's credentials, where the plugin
// host adds them to the taint set before they leave.
func (rc *runCtx) declaredCredentials(def *sdk.Definition) (map[string]string, error) {
	connector := sdk.PluginOf(def.ID)
	out := make(map[string]string, len(def.Credentials))
	for _, name := range def.Credentials {
		v, err := rc.e.CredentialResolver().Resolve(connector, name)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}
