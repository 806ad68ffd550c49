package processcmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// ListOptions are `runx process list`'s arguments.
type ListOptions struct {
	Factory *cli.Factory
	Actor   string
	JSON    bool
}

// NewList wires `runx process list`. A test passes runF to see the options a
// command line parses to without running anything; nil runs it.
func NewList(f *cli.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the project's processes, running and ended",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(runList(c, opts))
		},
	}
	cmd.Flags().StringVar(&opts.Actor, "actor", "", "only this actor's processes")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

func runList(c *cobra.Command, opts *ListOptions) cli.ExitCode {
	io := opts.Factory.IO
	return opts.Factory.ReadKernel(c.Context(), opts.JSON, func(k *run.Kernel) cli.ExitCode {
		var doc json.RawMessage
		input := map[string]any{}
		if opts.Actor != "" {
			input["actor"] = opts.Actor
		}
		if err := invoke(c.Context(), k, listCapability, input, &doc); err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, doc)
			return cli.ExitOK
		}
		var list struct {
			Processes []Process `json:"processes"`
		}
		if err := json.Unmarshal(doc, &list); err != nil {
			return cli.ReportError(io, false, err)
		}
		if len(list.Processes) == 0 {
			fmt.Fprintln(io.Out, "no processes")
			return cli.ExitOK
		}
		for _, p := range list.Processes {
			fmt.Fprintf(io.Out, "%-40s %-9s %-7s %-8s %s  %s\n", p.ProcessID, p.State, p.Kind, p.Actor, p.CreatedAt.Format("2006-01-02T15:04:05Z"), strings.Join(p.Argv, " "))
		}
		return cli.ExitOK
	})
}
