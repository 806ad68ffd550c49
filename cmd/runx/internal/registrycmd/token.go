package registrycmd

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry/server"
	"github.com/spf13/cobra"
)

// TokenOptions are `runx registry token create`'s arguments.
type TokenOptions struct {
	Factory   *cli.Factory
	Store     StoreFlags
	Namespace string
	JSON      bool
}

// NewToken wires `runx registry token` and its one verb, create.
func NewToken(f *cli.Factory, runF func(*TokenOptions) error) *cobra.Command {
	opts := &TokenOptions{Factory: f}
	create := &cobra.Command{
		Use:   "create --namespace <publisher> (--data <dir> | --database <url>)",
		Short: "Create a publish token owning a namespace and print it (the registry keeps only its hash)",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Namespace == "" {
				return cli.Usagef("--namespace is required: the publisher namespace the token may publish under")
			}
			if err := opts.Store.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return RunToken(c.Context(), opts)
		},
	}
	create.Flags().StringVar(&opts.Namespace, "namespace", "", "the namespace the token owns")
	create.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	opts.Store.add(create)
	cmd := &cobra.Command{Use: "token", Short: "Manage the registry's publish tokens"}
	cmd.AddCommand(create)
	return cmd
}

// RunToken creates the token and prints it once; it is never shown again.
func RunToken(ctx context.Context, opts *TokenOptions) error {
	f := opts.Factory
	st, err := opts.Store.open(ctx)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	defer st.Close()
	token, err := server.CreateToken(ctx, st, opts.Namespace)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.registry_token.v1", "token": token, "namespace": opts.Namespace})
	}
	fmt.Fprintln(f.IO.Out, token)
	return nil
}
