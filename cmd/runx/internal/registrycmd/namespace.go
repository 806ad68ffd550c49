package registrycmd

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/spf13/cobra"
)

// NamespaceOptions are `runx registry namespace`'s arguments.
type NamespaceOptions struct {
	Factory   *cli.Factory
	Store     StoreFlags
	Namespace string
	Tier      string // empty: print the tier
	JSON      bool
}

// NewNamespace wires `runx registry namespace`: read or set a namespace's
// trust tier, the registry's statement shown on every search and install.
func NewNamespace(f *cli.Factory, runF func(*NamespaceOptions) error) *cobra.Command {
	opts := &NamespaceOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "namespace --namespace <publisher> [--tier first_party|verified|community] (--data <dir> | --database <url>)",
		Short: "Print a namespace's trust tier, or set it with --tier",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Namespace == "" {
				return cli.Usagef("--namespace is required")
			}
			if err := opts.Store.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return RunNamespace(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Namespace, "namespace", "", "the publisher namespace")
	cmd.Flags().StringVar(&opts.Tier, "tier", "", "set the tier: first_party, verified or community")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	opts.Store.add(cmd)
	return cmd
}

// RunNamespace sets (when asked) and prints the namespace's tier. Records
// already published keep the tier they were signed with; search and the
// package pages show the tier as it is now.
func RunNamespace(ctx context.Context, opts *NamespaceOptions) error {
	f := opts.Factory
	fail := func(err error) error { return cli.Exit(cli.ReportError(f.IO, opts.JSON, err)) }
	if err := store.CheckNamespace(opts.Namespace); err != nil {
		return fail(err)
	}
	var tier store.Tier
	if opts.Tier != "" {
		t, err := store.ParseTier(opts.Tier)
		if err != nil {
			return fail(err)
		}
		tier = t
	}
	st, err := opts.Store.open(ctx)
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	if tier != "" {
		if err := st.SetTier(ctx, opts.Namespace, tier); err != nil {
			return fail(err)
		}
	}
	if tier, err = st.Tier(ctx, opts.Namespace); err != nil {
		return fail(err)
	}
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.registry_namespace.v1", "namespace": opts.Namespace, "trust_tier": tier})
	}
	fmt.Fprintf(f.IO.Out, "%s %s\n", opts.Namespace, tier)
	return nil
}
