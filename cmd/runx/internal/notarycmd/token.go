package notarycmd

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/notary/server"
	"github.com/spf13/cobra"
)

// TokenOptions are `runx notary token create`'s arguments.
type TokenOptions struct {
	Factory *cli.Factory
	Store   StoreFlags
	Name    string
	JSON    bool
}

// NewToken wires `runx notary token` and its one verb, create.
func NewToken(f *cli.Factory, runF func(*TokenOptions) error) *cobra.Command {
	opts := &TokenOptions{Factory: f}
	create := &cobra.Command{
		Use:   "create --name <holder> (--data <dir> | --database <url>)",
		Short: "Create a notarize token and print it (the notary keeps only its hash)",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Name == "" || len(opts.Name) > 128 {
				return cli.Usagef("--name is required (at most 128 bytes): whom the token is issued to")
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
	create.Flags().StringVar(&opts.Name, "name", "", "whom the token is issued to")
	create.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	opts.Store.add(create)
	cmd := &cobra.Command{Use: "token", Short: "Manage the notary's notarize tokens"}
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
	token, err := server.CreateToken(ctx, st, opts.Name)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.notary_token.v1", "token": token, "name": opts.Name})
	}
	fmt.Fprintln(f.IO.Out, token)
	return nil
}
