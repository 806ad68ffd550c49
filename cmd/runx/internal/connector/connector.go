// Package connector is `runx connector use store --parameter url=...` and
// `runx secret set <name>`: binding the workspace store and keeping
// credentials behind the credential boundary.
package connector

import (
	"fmt"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// New wires `runx connector use`.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "connector", Short: "Bind connectors (the workspace store)"}
	var params []string
	var asJSON bool
	use := &cobra.Command{
		Use:   "use store --parameter url=<sqlite path|postgres://…|redis://…> [--parameter profile=<name>]",
		Short: "Move the workspace store to another SQLite file, PostgreSQL or Redis",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if args[0] != "store" {
				return cli.Exit(cli.ReportError(f.IO, asJSON, cli.Usagef("this runx binds only the store connector")))
			}
			values := map[string]string{}
			for _, p := range params {
				k, v, ok := strings.Cut(p, "=")
				if !ok || (k != "url" && k != "profile") {
					return cli.Exit(cli.ReportError(f.IO, asJSON, cli.Usagef("--parameter takes url=… or profile=…")))
				}
				values[k] = v
			}
			if values["url"] == "" {
				return cli.Exit(cli.ReportError(f.IO, asJSON, cli.Usagef("--parameter url=… is required")))
			}
			binding, err := storeBinding(values["url"], values["profile"])
			if err != nil {
				return cli.Exit(cli.ReportError(f.IO, asJSON, err))
			}
			return cli.Exit(f.WithKernel(asJSON, func(k *run.Kernel) cli.ExitCode {
				b, err := k.DataSources().UseStore(c.Context(), binding)
				if err != nil {
					return cli.ReportError(f.IO, asJSON, err)
				}
				if asJSON {
					if err := cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.connector_binding.v1", "connector": "store", "binding": b}); err != nil {
						return cli.ReportError(f.IO, asJSON, err)
					}
					return cli.ExitOK
				}
				fmt.Fprintf(f.IO.Out, "the workspace store is now %s\n", b.Adapter)
				return cli.ExitOK
			}))
		},
	}
	use.Flags().StringArrayVar(&params, "parameter", nil, "url=… or profile=…")
	use.Flags().BoolVarP(&asJSON, "json", "j", false, "print one JSON document")
	cmd.AddCommand(use)
	return cmd
}

// NewSecret wires `runx secret set <name>`: the value is read from standard
// input, never from an argument and never by prompting.
func NewSecret(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "secret", Short: "Keep credentials in the runx home"}
	var asJSON bool
	set := &cobra.Command{
		Use:   "set <name>",
		Short: "Store the secret given on standard input under name (0600 in the runx home)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o, err := run.ResolveOptions(f.Options())
			if err != nil {
				return cli.Exit(cli.ReportError(f.IO, asJSON, err))
			}
			raw, err := cli.ReadInputsDocument(f.IO.In, o.Workspace, o.Cwd, "-")
			if err != nil {
				return cli.Exit(cli.ReportError(f.IO, asJSON, err))
			}
			if err := credential.SetSecret(o.HomeDir, args[0], raw); err != nil {
				return cli.Exit(cli.ReportError(f.IO, asJSON, err))
			}
			if asJSON {
				return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.secret_set.v1", "name": args[0]})
			}
			fmt.Fprintf(f.IO.Out, "stored secret %s\n", args[0])
			return nil
		},
	}
	set.Flags().BoolVarP(&asJSON, "json", "j", false, "print one JSON document")
	cmd.AddCommand(set)
	return cmd
}

// storeBinding is the binding a store URL names: a SQLite file path, or
// postgres://… or redis://… without a password. The adapters are the
// first-party store plugin's; the kernel checks the binding against the
// adapter's declared binding schema.
func storeBinding(rawURL, profile string) (map[string]any, error) {
	b := map[string]any{}
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		b["adapter"], b["endpoint"] = "data.postgres", rawURL
	case strings.HasPrefix(rawURL, "redis://"), strings.HasPrefix(rawURL, "rediss://"):
		b["adapter"], b["endpoint"] = "data.redis", rawURL
	case strings.HasPrefix(rawURL, "sqlite://"), !strings.Contains(rawURL, "://"):
		b["adapter"], b["database_path"] = "data.sqlite", strings.TrimPrefix(rawURL, "sqlite://")
	default:
		return nil, contract.Errorf("store_url_invalid", "--parameter url takes a SQLite path, postgres://… or redis://…")
	}
	if profile != "" {
		b["profile"] = profile
	}
	return b, nil
}
