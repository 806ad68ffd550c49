// Package history is `runx history [run-id]`: the sealed runs in the receipt
// store, or one run.
package history

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
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
	// Skill, Status, Since, Limit and Tests select the runs the list shows
	// (without a run id). Limit is -1 when not given.
	Skill  string
	Status string
	Since  string
	Limit  int
	Tests  bool
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil reads the history.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "history [run-id]",
		Short: "List runs, newest first, or read one run and what it waits on",
		Long: "Without a run id: the runs of this workspace, newest first, sealed and not,\n" +
			"with --skill, --status, --since and --limit to narrow them; the runs runx test\n" +
			"kept are listed apart, with --tests. With a run id: that run, each request it\n" +
			"waits on shown as a person decides it, with the runx resume command lines\n" +
			"that decide it.",
		Args: cli.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.RunID = args[0]
				for _, name := range []string{"skill", "status", "since", "limit", "tests"} {
					if cmd.Flags().Changed(name) {
						return cli.Usagef("--%s narrows the list of runs and takes no run id", name)
					}
				}
			}
			if opts.Status != "" {
				if err := parseStatus(opts.Status); err != nil {
					return err
				}
			}
			if opts.Since != "" {
				if _, err := parseSince(opts.Since, time.Now()); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("limit") && opts.Limit < 0 {
				return cli.Usagef("--limit takes 0 (every run) or more; got %d", opts.Limit)
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Run(cmd.Context(), opts))
		},
	}
	cmd.Flags().StringVar(&opts.After, "after", "", "with a run id: only the events after this cursor")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	cmd.Flags().StringVar(&opts.Skill, "skill", "", "list only the runs of this skill (its name)")
	cmd.Flags().StringVar(&opts.Status, "status", "", "list only the runs with this outcome (completed, failed, ...) or state (paused, stopped, running)")
	cmd.Flags().StringVar(&opts.Since, "since", "", "list only the runs since a duration back (24h, 7d), a date (2026-12-01) or an RFC 3339 time")
	cmd.Flags().IntVar(&opts.Limit, "limit", -1, fmt.Sprintf("list at most this many of the newest runs; 0 lists them all (default %d, or all with --json)", DefaultLimit))
	cmd.Flags().BoolVar(&opts.Tests, "tests", false, "list only the runs runx test kept, which the list otherwise leaves out")
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
			var env struct {
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(read.Envelope, &env) == nil && len(env.Result) > 0 && string(env.Result) != "null" {
				cli.PrintValue(io.Out, "  result:  ", env.Result, "runx history "+read.RunID+" --json, at envelope.result")
			}
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
		f := Filter{Skill: opts.Skill, Status: opts.Status, Limit: opts.Limit, Tests: opts.Tests}
		if opts.Since != "" {
			if f.Since, err = parseSince(opts.Since, time.Now()); err != nil {
				return cli.ReportError(io, opts.JSON, err)
			}
		}
		if f.Limit < 0 {
			f.Limit = 0
			if !opts.JSON {
				f.Limit = DefaultLimit
			}
		}
		sel := selectRuns(runs, open, f)
		if opts.JSON {
			// The document keeps its shape and order (sealed runs as the
			// receipt index holds them, open runs oldest first), holding
			// only the runs the filter selects.
			keep := map[string]bool{}
			for _, r := range sel.rows {
				keep[r.runID] = true
			}
			keptRuns := []receipt.IndexEntry{}
			for _, e := range runs {
				if keep[e.RunID] {
					keptRuns = append(keptRuns, e)
				}
			}
			keptOpen := []run.OpenRun{}
			for _, r := range open {
				if keep[r.RunID] {
					keptOpen = append(keptOpen, r)
				}
			}
			_ = cli.PrintJSON(io.Out, map[string]any{"schema": "runx.history.v1", "runs": keptRuns, "open": keptOpen})
			return cli.ExitOK
		}
		if len(runs) == 0 && len(open) == 0 {
			fmt.Fprintln(io.Out, "no runs yet")
			return cli.ExitOK
		}
		printList(io.Out, sel, opts.Limit >= 0)
		return cli.ExitOK
	})
}
