package registrycmd

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry/client"
	"github.com/spf13/cobra"
)

// SearchOptions are `runx registry search`'s arguments.
type SearchOptions struct {
	Factory  *cli.Factory
	Words    string
	Registry string
	Limit    int
	JSON     bool
}

// NewSearch wires `runx registry search <words>`. A test passes runF to see
// the options a command line parses to; nil searches.
func NewSearch(f *cli.Factory, runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "search <words>",
		Short: "Find skills and connectors in a registry, each with the registry's trust tier",
		Args:  cli.RangeArgs(1, 64),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Words = strings.Join(args, " ")
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Search(c.Context(), opts))
		},
	}
	addRegistryFlag(cmd, &opts.Registry)
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, fmt.Sprintf("the most results to show (at most %d)", client.SearchLimit))
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// SearchReport is what `runx registry search --json` prints.
type SearchReport struct {
	Schema   string                `json:"schema"`
	Registry string                `json:"registry"`
	Results  []client.SearchResult `json:"results"`
}

// Search asks the registry and presents what it found.
func Search(ctx context.Context, opts *SearchOptions) cli.ExitCode {
	io := opts.Factory.IO
	if opts.Limit < 1 || opts.Limit > client.SearchLimit {
		return cli.ReportError(io, opts.JSON, cli.Usagef("--limit is 1 to %d", client.SearchLimit))
	}
	r, err := openRemote(opts.Factory, opts.Registry, false)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	res, err := r.client.Search(ctx, opts.Words, opts.Limit)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if opts.JSON {
		if res == nil {
			res = []client.SearchResult{}
		}
		_ = cli.PrintJSON(io.Out, SearchReport{Schema: "runx.registry_search.v1", Registry: r.client.URL(), Results: res})
		return cli.ExitOK
	}
	if len(res) == 0 {
		fmt.Fprintf(io.Out, "nothing in %s matches %q\n", r.client.URL(), opts.Words)
		return cli.ExitOK
	}
	for _, s := range res {
		fmt.Fprintf(io.Out, "%s  [%s]  %s\n", printable(s.Ref), printable(s.TrustTier), printable(s.Description))
		for _, m := range s.Methods {
			fmt.Fprintf(io.Out, "  #%s  %s\n", printable(m.Name), printable(m.Description))
		}
	}
	return cli.ExitOK
}

// printable is a registry's text fit for a terminal: no control
// characters (an escape sequence in a description could rewrite the screen).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
