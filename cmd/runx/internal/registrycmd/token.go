package registrycmd

import (
	"context"
	"fmt"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry/server"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/spf13/cobra"
)

// TokenOptions are `runx registry token`'s arguments: create takes
// Namespace, list an optional Namespace, revoke an ID.
type TokenOptions struct {
	Factory   *cli.Factory
	Store     StoreFlags
	Namespace string
	ID        string
	JSON      bool
}

// NewToken wires `runx registry token` and its verbs: create, list and
// revoke. runF, when given, replaces each verb's run (a test of the flags).
func NewToken(f *cli.Factory, runF func(*TokenOptions) error) *cobra.Command {
	opts := &TokenOptions{Factory: f}
	verb := func(c *cobra.Command, run func(context.Context, *TokenOptions) error, check func() error) *cobra.Command {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if err := check(); err != nil {
				return err
			}
			if err := opts.Store.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(cmd.Context(), opts)
		}
		c.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
		opts.Store.add(c)
		return c
	}
	create := verb(&cobra.Command{
		Use:   "create --namespace <publisher> (--data <dir> | --database <url>)",
		Short: "Create a publish token owning a namespace and print it (the registry keeps only its hash)",
		Args:  cli.NoArgs,
	}, RunToken, func() error {
		if opts.Namespace == "" {
			return cli.Usagef("--namespace is required: the publisher namespace the token may publish under")
		}
		return nil
	})
	create.Flags().StringVar(&opts.Namespace, "namespace", "", "the namespace the token owns")
	list := verb(&cobra.Command{
		Use:   "list [--namespace <publisher>] (--data <dir> | --database <url>)",
		Short: "List the publish tokens by id, namespace and when each was made or revoked (never a token)",
		Args:  cli.NoArgs,
	}, RunTokenList, func() error { return nil })
	list.Flags().StringVar(&opts.Namespace, "namespace", "", "only the tokens of this namespace")
	revoke := verb(&cobra.Command{
		Use:   "revoke <token id> (--data <dir> | --database <url>)",
		Short: "Revoke a publish token by its id: the registry refuses it from its next request on",
		Args:  cli.ExactArgs(1),
	}, RunTokenRevoke, func() error { return nil })
	cmd := &cobra.Command{Use: "token", Short: "Manage the registry's publish tokens"}
	cmd.AddCommand(create, list, revoke)
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
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.registry_token.v1", "token": token, "id": server.TokenID(token), "namespace": opts.Namespace})
	}
	fmt.Fprintln(f.IO.Out, token)
	return nil
}

// tokenDoc is a token as list and revoke show it: never its hash.
func tokenDoc(t store.Token) map[string]any {
	d := map[string]any{"id": t.ID, "namespace": t.Namespace, "created_at": t.CreatedAt.UTC().Format(time.RFC3339)}
	if !t.RevokedAt.IsZero() {
		d["revoked_at"] = t.RevokedAt.UTC().Format(time.RFC3339)
	}
	return d
}

func tokenLine(t store.Token) string {
	state := "live"
	if !t.RevokedAt.IsZero() {
		state = "revoked " + t.RevokedAt.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("%s  %s  created %s  %s", t.ID, t.Namespace, t.CreatedAt.UTC().Format(time.RFC3339), state)
}

// RunTokenList prints the tokens, oldest first.
func RunTokenList(ctx context.Context, opts *TokenOptions) error {
	f := opts.Factory
	fail := func(err error) error { return cli.Exit(cli.ReportError(f.IO, opts.JSON, err)) }
	if opts.Namespace != "" {
		if err := store.CheckNamespace(opts.Namespace); err != nil {
			return fail(err)
		}
	}
	st, err := opts.Store.open(ctx)
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	tokens, err := st.Tokens(ctx, opts.Namespace)
	if err != nil {
		return fail(err)
	}
	if opts.JSON {
		docs := make([]map[string]any, 0, len(tokens))
		for _, t := range tokens {
			docs = append(docs, tokenDoc(t))
		}
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.registry_tokens.v1", "tokens": docs})
	}
	for _, t := range tokens {
		fmt.Fprintln(f.IO.Out, tokenLine(t))
	}
	return nil
}

// RunTokenRevoke revokes the token and prints it as it now stands.
func RunTokenRevoke(ctx context.Context, opts *TokenOptions) error {
	f := opts.Factory
	fail := func(err error) error { return cli.Exit(cli.ReportError(f.IO, opts.JSON, err)) }
	if err := server.CheckTokenID(opts.ID); err != nil {
		return fail(err)
	}
	st, err := opts.Store.open(ctx)
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	t, err := server.RevokeToken(ctx, st, opts.ID, time.Now())
	if err != nil {
		return fail(err)
	}
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.registry_token_revoked.v1", "token": tokenDoc(t)})
	}
	fmt.Fprintln(f.IO.Out, tokenLine(t))
	return nil
}
