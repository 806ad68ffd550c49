// Package history is `runx history [run-id]`: the sealed runs in the receipt
// store, or one run.
package history

import (
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory *cli.Factory
	RunID   string
	JSON    bool
}

// New wires the command.
func New(f *cli.Factory) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "history [run-id]",
		Short: "List sealed runs, or read one run",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.RunID = args[0]
			}
			return cli.Exit(Run(opts))
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// Run lists or reads runs.
func Run(opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	k, err := opts.Factory.Kernel()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	defer k.Close()
	if opts.RunID != "" {
		read, err := k.ReadRun(opts.RunID)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, read)
			return cli.ExitOK
		}
		fmt.Fprintf(io.Out, "%s %s %s %s\n", read.RunID, read.SkillName, read.State, read.Outcome)
		for _, e := range read.Receipts {
			fmt.Fprintf(io.Out, "  %-4s %-10s %s\n", e.Kind, e.Outcome, e.ReceiptID)
		}
		return cli.ExitOK
	}
	runs, err := k.RunHistory()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, map[string]any{"schema": "runx.history.v1", "runs": runs})
		return cli.ExitOK
	}
	if len(runs) == 0 {
		fmt.Fprintln(io.Out, "no runs yet")
	}
	for _, e := range runs {
		fmt.Fprintf(io.Out, "%s  %-24s %-10s %s\n", e.SealedAt, e.RunID, e.Outcome, e.SkillName)
	}
	return cli.ExitOK
}
