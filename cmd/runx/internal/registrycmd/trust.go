package registrycmd

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/client"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// TrustOptions are `runx registry trust add`'s arguments.
type TrustOptions struct {
	Factory    *cli.Factory
	Registry   string
	Key        string
	Namespaces []string
	JSON       bool
}

// NewTrust wires `runx registry trust add`. A test passes runF to see the
// options a command line parses to; nil adds the key.
func NewTrust(f *cli.Factory, runF func(*TrustOptions) error) *cobra.Command {
	cmd := &cobra.Command{Use: "trust", Short: "Keys runx trusts to sign registry packages, each for the namespaces it is given"}
	opts := &TrustOptions{Factory: f}
	add := &cobra.Command{
		Use:   "add --registry <url> --key <ed25519:key> --namespace <pattern>",
		Short: "Trust a registry's key for the publisher namespaces given (an exact publisher or a glob such as acme-*)",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Key == "" || len(opts.Namespaces) == 0 {
				return cli.Usagef("give --key and at least one --namespace: a key is trusted only for the namespaces it is given")
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(TrustAdd(c.Context(), opts))
		},
	}
	addRegistryFlag(add, &opts.Registry)
	add.Flags().StringVar(&opts.Key, "key", "", "the registry's public key, ed25519:<base64> (runx registry key prints it)")
	add.Flags().StringArrayVar(&opts.Namespaces, "namespace", nil, "a publisher namespace or glob the key may sign for (repeatable)")
	add.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	cmd.AddCommand(add)
	return cmd
}

// TrustReport is what `runx registry trust add --json` prints.
type TrustReport struct {
	Schema     string   `json:"schema"`
	Registry   string   `json:"registry"`
	Key        string   `json:"key"`
	Namespaces []string `json:"namespaces"`
}

// TrustAdd adds the key to the trust store in the runx home.
func TrustAdd(_ context.Context, opts *TrustOptions) cli.ExitCode {
	io := opts.Factory.IO
	o, err := run.ResolveOptions(opts.Factory.Options())
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	raw, err := client.ResolveURL(opts.Registry, o.LookupEnv)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	base, err := client.CheckURL(raw)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	t, err := registry.LoadTrust(o.HomeDir)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if err := t.Add(base, opts.Key, opts.Namespaces...); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if err := t.Save(o.HomeDir); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	var namespaces []string
	for _, k := range t.Keys {
		if k.Registry == registry.NormalizeRegistry(base) && k.Key == opts.Key {
			namespaces = k.Namespaces
		}
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, TrustReport{Schema: "runx.registry_trust.v1", Registry: base, Key: opts.Key, Namespaces: namespaces})
		return cli.ExitOK
	}
	fmt.Fprintf(io.Out, "trusted %s on %s for %v\n", opts.Key, base, namespaces)
	return cli.ExitOK
}
