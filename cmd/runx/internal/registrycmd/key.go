package registrycmd

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/server"
	"github.com/spf13/cobra"
)

// KeyOptions are `runx registry key`'s arguments.
type KeyOptions struct {
	Factory *cli.Factory
	Store   StoreFlags
	JSON    bool
}

// NewKey wires `runx registry key`: print the registry's public key,
// creating the key the first time.
func NewKey(f *cli.Factory, runF func(*KeyOptions) error) *cobra.Command {
	opts := &KeyOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "key (--data <dir> | --database <url>)",
		Short: "Print the registry's public signing key (ed25519:<base64>), creating it the first time",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.Store.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return RunKey(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	opts.Store.add(cmd)
	return cmd
}

// RunKey prints the public key; clients trust it with runx registry trust add.
func RunKey(ctx context.Context, opts *KeyOptions) error {
	f := opts.Factory
	st, err := opts.Store.open(ctx)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	defer st.Close()
	priv, err := server.Key(ctx, st)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	pub := priv.Public().(ed25519.PublicKey)
	key := registry.FormatPublicKey(pub)
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.registry_key.v1", "key": key, "key_id": registry.KeyID(pub)})
	}
	fmt.Fprintln(f.IO.Out, key)
	return nil
}
