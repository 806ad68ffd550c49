package notarycmd

import (
	"context"
	"crypto/ed25519"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/server"
	"github.com/spf13/cobra"
)

// KeyOptions are `runx notary key`'s arguments.
type KeyOptions struct {
	Factory *cli.Factory
	Store   StoreFlags
	JSON    bool
}

// NewKey wires `runx notary key`: print the notary's public key as PEM,
// creating the key the first time.
func NewKey(f *cli.Factory, runF func(*KeyOptions) error) *cobra.Command {
	opts := &KeyOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "key (--data <dir> | --database <url>)",
		Short: "Print the notary's public key (PEM), what runx verify --notary-key reads",
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

// RunKey prints the public key.
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
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.notary_key.v1", "public_key": string(notary.FormatPublicKey(pub)),
			"key_id": notary.KeyID(pub), "origin": notary.Origin(pub)})
	}
	_, err = f.IO.Out.Write(notary.FormatPublicKey(pub))
	return err
}
