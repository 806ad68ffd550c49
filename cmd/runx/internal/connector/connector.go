// Package connector is `runx connector use <connector>` and `runx secret
// set <name>`: binding the workspace store, binding a connector's
// credential, and keeping secrets behind the credential boundary
// (kernel/credential owns the files; this package only parses and
// presents).
package connector

import (
	"context"
	"fmt"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// storeConnector is the connector that binds the workspace store; it takes
// parameters, not a credential.
const storeConnector = "store"

// UseOptions is one `runx connector use`.
type UseOptions struct {
	Connector string
	Params    []string
	Env       string
	Secret    string
	Package   string
	JSON      bool
}

// New wires `runx connector` and its `use` verb.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "connector", Short: "Bind connectors: the workspace store, and a connector's credential"}
	cmd.AddCommand(NewUse(f, nil))
	return cmd
}

// NewUse wires `runx connector use`. A test passes runF to see the options a
// command line parses to without running anything; nil binds.
func NewUse(f *cli.Factory, runF func(*UseOptions) error) *cobra.Command {
	o := &UseOptions{}
	use := &cobra.Command{
		Use:   "use <connector> [--env NAME | --secret NAME | < value]   |   use store --parameter url=<sqlite path|postgres://…|redis://…>",
		Short: "Bind a connector's credential (an environment variable, a value piped on stdin, or a stored secret), or move the workspace store",
		Long: `Bind a connector's credential. With --env NAME the credential is read from
that variable at run time; with --secret NAME from a secret stored by
runx secret set; a value piped on standard input is stored (0600 in the runx
home) and bound. With none, the connector's declared variable is bound when it
is set. A value is never an argument and is never echoed. The connector is
a connector.yaml (in --package, else the current directory, or the project's
added connectors) or an installed, pinned runx-plugin-<connector>, whose
description names the credential.

runx connector use store --parameter url=... moves the workspace store.`,
		Args: cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Connector = args[0]
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			if o.Connector == storeConnector {
				return cli.Exit(useStore(c, f, o))
			}
			return cli.Exit(useCredential(c.Context(), f, o))
		},
	}
	use.Flags().StringArrayVar(&o.Params, "parameter", nil, "store only: url=… or profile=…")
	use.Flags().StringVar(&o.Env, "env", "", "read the credential from this environment variable at run time")
	use.Flags().StringVar(&o.Secret, "secret", "", "read the credential from this stored secret (runx secret set)")
	use.Flags().StringVar(&o.Package, "package", "", "the package declaring the connector (default: the current directory)")
	use.Flags().BoolVarP(&o.JSON, "json", "j", false, "print one JSON document")
	return use
}

// check refuses, before anything runs, flags that do not go with the
// connector named: the store takes parameters, a connector a credential.
func (o *UseOptions) check() error {
	if o.Connector != storeConnector {
		if len(o.Params) > 0 {
			return cli.Usagef("--parameter binds only the store connector")
		}
		return nil
	}
	if o.Env != "" || o.Secret != "" || o.Package != "" {
		return cli.Usagef("the store connector takes --parameter url=… (and profile=…), not --env, --secret or --package")
	}
	_, err := storeParams(o.Params)
	return err
}

// storeParams are the store connector's --parameter values: url (required)
// and profile.
func storeParams(params []string) (map[string]string, error) {
	values := map[string]string{}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || (k != "url" && k != "profile") {
			return nil, cli.Usagef("--parameter takes url=… or profile=…")
		}
		values[k] = v
	}
	if values["url"] == "" {
		return nil, cli.Usagef("--parameter url=… is required")
	}
	return values, nil
}

func useStore(c *cobra.Command, f *cli.Factory, o *UseOptions) cli.ExitCode {
	values, err := storeParams(o.Params)
	if err != nil {
		return cli.ReportError(f.IO, o.JSON, err)
	}
	binding, err := storeBinding(values["url"], values["profile"])
	if err != nil {
		return cli.ReportError(f.IO, o.JSON, err)
	}
	return f.WithKernel(c.Context(), o.JSON, func(k *run.Kernel) cli.ExitCode {
		b, err := k.DataSources().UseStore(c.Context(), binding)
		if err != nil {
			return cli.ReportError(f.IO, o.JSON, err)
		}
		if o.JSON {
			if err := cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.connector_binding.v1", "connector": storeConnector, "binding": b}); err != nil {
				return cli.ReportError(f.IO, o.JSON, err)
			}
			return cli.ExitOK
		}
		fmt.Fprintf(f.IO.Out, "the workspace store is now %s\n", b.Adapter)
		return cli.ExitOK
	})
}

func useCredential(ctx context.Context, f *cli.Factory, o *UseOptions) cli.ExitCode {
	opts, err := run.ResolveOptions(f.Options())
	if err != nil {
		return cli.ReportError(f.IO, o.JSON, err)
	}
	variable, err := declaredVariable(opts, o, func(name string) (string, error) {
		// A connector plugin is asked for its description only when no
		// manifest declares the connector; that starts it, so the kernel
		// opens only then.
		k, err := f.Kernel(ctx)
		if err != nil {
			return "", err
		}
		defer k.Close()
		return k.PluginCredential(ctx, name)
	})
	if err != nil {
		return cli.ReportError(f.IO, o.JSON, err)
	}
	piped, err := readPiped(f.IO.In, false)
	if err != nil {
		return cli.ReportError(f.IO, o.JSON, err)
	}
	b, err := credential.Use(opts.HomeDir, opts.LookupEnv, credential.UseRequest{Connector: o.Connector, Variable: variable, Env: o.Env, Secret: o.Secret, Piped: piped})
	if err != nil {
		return cli.ReportError(f.IO, o.JSON, err)
	}
	from := map[bool]string{true: "env", false: "secret"}[b.Env != ""]
	if o.JSON {
		doc := map[string]any{"schema": "runx.connector_binding.v1", "connector": b.Connector, "credential": map[string]any{"from": from, "env": b.Env, "secret": b.Secret, "variable": b.Variable}}
		if err := cli.PrintJSON(f.IO.Out, doc); err != nil {
			return cli.ReportError(f.IO, o.JSON, err)
		}
		return cli.ExitOK
	}
	if b.Env != "" {
		fmt.Fprintf(f.IO.Out, "connector %s reads its credential from $%s\n", b.Connector, b.Env)
	} else {
		fmt.Fprintf(f.IO.Out, "connector %s reads its credential from the stored secret %s\n", b.Connector, b.Secret)
	}
	return cli.ExitOK
}

// NewSecret wires `runx secret` and its `set` verb.
func NewSecret(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "secret", Short: "Keep credentials in the runx home"}
	cmd.AddCommand(NewSecretSet(f, nil))
	return cmd
}

// SecretOptions are `runx secret set`'s arguments.
type SecretOptions struct {
	Factory *cli.Factory
	Name    string
	JSON    bool
}

// NewSecretSet wires `runx secret set <name>`: the value is read from
// standard input, never from an argument and never by prompting. A test
// passes runF to see the options a command line parses to without running
// anything; nil stores the secret.
func NewSecretSet(f *cli.Factory, runF func(*SecretOptions) error) *cobra.Command {
	opts := &SecretOptions{Factory: f}
	set := &cobra.Command{
		Use:   "set <name>",
		Short: "Store the secret given on standard input under name (0600 in the runx home)",
		Args:  cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return SetSecret(opts)
		},
	}
	set.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return set
}

// SetSecret stores the secret piped on standard input.
func SetSecret(opts *SecretOptions) error {
	f := opts.Factory
	o, err := run.ResolveOptions(f.Options())
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	raw, err := readPiped(f.IO.In, true)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	if err := credential.SetSecret(o.HomeDir, opts.Name, raw); err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.secret_set.v1", "name": opts.Name})
	}
	fmt.Fprintf(f.IO.Out, "stored secret %s\n", opts.Name)
	return nil
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
		return nil, contract.Errorf(errcode.StoreURLInvalid, "--parameter url takes a SQLite path, postgres://… or redis://…")
	}
	if profile != "" {
		b["profile"] = profile
	}
	return b, nil
}
