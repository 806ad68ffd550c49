package registrycmd

import (
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/registry/client"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// addRegistryFlag adds --registry, the registry a command talks to
// (RUNX_REGISTRY_URL when absent).
func addRegistryFlag(cmd *cobra.Command, target *string) {
	cmd.Flags().StringVar(target, "registry", "", "the registry's base URL (default RUNX_REGISTRY_URL)")
}

// remote is what a command that talks to a registry resolves first.
type remote struct {
	opts   run.Options
	client *client.Client
}

// openRemote resolves the invocation's options and a client for the
// registry --registry or RUNX_REGISTRY_URL names. withToken adds the
// publisher token: RUNX_REGISTRY_TOKEN, else the one runx login stored for
// that registry.
func openRemote(f *cli.Factory, registryFlag string, withToken bool) (*remote, error) {
	o, err := run.ResolveOptions(f.Options())
	if err != nil {
		return nil, err
	}
	raw, err := client.ResolveURL(registryFlag, o.LookupEnv)
	if err != nil {
		return nil, err
	}
	base, err := client.CheckURL(raw)
	if err != nil {
		return nil, err
	}
	var token string
	if withToken {
		if token, err = publishToken(o, base); err != nil {
			return nil, err
		}
	}
	c, err := client.New(base, client.Options{Token: token})
	if err != nil {
		return nil, err
	}
	if token != "" && f.Taint != nil {
		// Nothing this invocation prints holds the token.
		f.Taint.Add(token)
	}
	return &remote{opts: o, client: c}, nil
}

// publishToken is the publisher token for the registry at base:
// RUNX_REGISTRY_TOKEN, else the secret runx login --for publish stored for
// it. None is no error here: whoami and publish refuse without one.
func publishToken(o run.Options, base string) (string, error) {
	if v, ok := o.LookupEnv(client.EnvToken); ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), nil
	}
	v, ok, err := credential.ReadSecret(o.HomeDir, client.TokenSecretName(base))
	if err != nil || !ok {
		return "", err
	}
	return v, nil
}
