// Package history is `runx history [run-id]`: the sealed runs in the receipt
// store, or one run.
package history

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory *cli.Factory
	RunID   string
	After   string
	JSON    bool
	// Payload is a request's address: print its exact payload, read back
	// from its artifact past 64 KiB and held to its digest.
	Payload string
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil reads the history.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "history [run-id]",
		Short: "List sealed runs, or read one run",
		Args:  cli.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.RunID = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Run(cmd.Context(), opts))
		},
	}
	cmd.Flags().StringVar(&opts.After, "after", "", "with a run id: only the events after this cursor")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	cmd.Flags().StringVar(&opts.Payload, "payload", "", "with a run id: print the exact payload of the request waiting at this address, its artifact's content checked against its digest")
	return cmd
}

// Run lists or reads runs.
func Run(ctx context.Context, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	return opts.Factory.ReadKernel(ctx, opts.JSON, func(k *run.Kernel) cli.ExitCode {
		if opts.Payload != "" {
			if opts.RunID == "" {
				return cli.ReportError(io, opts.JSON, contract.Errorf(errcode.HistoryPayloadNeedsRun, "--payload reads a request of one run: give its run id"))
			}
			if opts.After != "" {
				return cli.ReportError(io, opts.JSON, contract.Errorf(errcode.HistoryFlagsConflict, "--payload reads one request's payload and takes no --after cursor; read events with --after alone"))
			}
			payload, err := k.ReadRequestPayload(ctx, opts.RunID, opts.Payload)
			if err != nil {
				return cli.ReportError(io, opts.JSON, err)
			}
			// The payload's own canonical JSON, byte for byte: what a host
			// digests to check summary.payload_digest.
			_, _ = io.Out.Write(append(payload, '\n'))
			return cli.ExitOK
		}
		if opts.RunID != "" {
			read, err := k.ReadRun(ctx, opts.RunID, opts.After)
			if err != nil {
				return cli.ReportError(io, opts.JSON, err)
			}
			if opts.JSON {
				_ = cli.PrintJSON(io.Out, read)
				return cli.ExitOK
			}
			fmt.Fprintf(io.Out, "%s %s#%s %s %s\n", read.RunID, read.SkillName, read.Method, read.State, read.Outcome)
			for _, s := range read.Steps {
				fmt.Fprintf(io.Out, "  step %-16s %-8s %s\n", s.Address, s.Status, s.ReceiptID)
			}
			for _, w := range read.Waiting {
				printPending(io.Out, read.RunID, w)
			}
			for _, r := range read.RefusedAnswers {
				fmt.Fprintf(io.Out, "  refused answer %s: %s [%s]\n", r.Address, r.Error.Message, r.Error.Code)
			}
			return cli.ExitOK
		}
		runs, err := k.RunHistory()
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		open, err := k.OpenRuns(ctx)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, map[string]any{"schema": "runx.history.v1", "runs": runs, "open": open})
			return cli.ExitOK
		}
		if len(runs) == 0 && len(open) == 0 {
			fmt.Fprintln(io.Out, "no runs yet")
		}
		for _, e := range runs {
			fmt.Fprintf(io.Out, "%s  %-24s %-10s %s\n", e.SealedAt, e.RunID, e.Outcome, e.SkillName)
		}
		for _, r := range open {
			fmt.Fprintf(io.Out, "%s  %-24s %-10s %s\n", r.UpdatedAt, r.RunID, r.State, r.SkillName)
		}
		return cli.ExitOK
	})
}
