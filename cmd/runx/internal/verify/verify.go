// Package verify is `runx verify <receipt-id | run-id>`: check a receipt's
// signature and the whole tree below it; a sealed run's id stands for its
// receipt.
package verify

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory   *cli.Factory
	ReceiptID string
	JSON      bool
	// Notary is --notary and its flags (notary.go).
	Notary NotaryOptions
	// InToto is --in-toto (intoto.go).
	InToto bool
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil verifies.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "verify <receipt-id | run-id> | --notary <document> --notary-key <key.pem>",
		Short: "Verify a receipt and its tree: verified, unverified (no trusted key) or invalid",
		Args:  cli.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.checkInToto(); err != nil {
				return err
			}
			if opts.Notary.requested() {
				if err := opts.Notary.check(args); err != nil {
					return err
				}
				if runF != nil {
					return runF(opts)
				}
				return cli.Exit(RunNotary(cmd.Context(), opts))
			}
			if len(args) != 1 {
				return cli.Usagef("runx verify takes one receipt or run id (or --notary <document> --notary-key <key.pem>)")
			}
			opts.ReceiptID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Run(cmd.Context(), opts))
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	opts.Notary.add(cmd)
	addInTotoFlag(cmd, opts)
	return cmd
}

// Report is what `runx verify --json` prints.
type Report struct {
	Schema string `json:"schema"`
	receipt.Report
	Receipt *receipt.Body `json:"receipt,omitempty"`
}

// Run verifies and presents; exit 0 only when the tree is verified.
func Run(ctx context.Context, opts *Options) cli.ExitCode {
	if opts.InToto {
		return runInToto(ctx, opts)
	}
	io := opts.Factory.IO
	return opts.Factory.ReadKernel(ctx, opts.JSON, func(k *run.Kernel) cli.ExitCode {
		// A run id stands for the receipt its run sealed.
		id, err := k.VerifyTarget(ctx, opts.ReceiptID)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		rep, err := k.Verify(ctx, id)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		out := Report{Schema: "runx.verify.v1", Report: rep}
		if r, _, err := k.Receipt(id); err == nil {
			out.Receipt = &r.Body
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, out)
		} else {
			styled := io.Styled()
			color := map[receipt.VerifyStatus]string{receipt.StatusVerified: "green", receipt.StatusUnverified: "yellow"}[rep.Status]
			if color == "" {
				color = "red"
			}
			fmt.Fprintf(io.Out, "%s %s (%d receipts, depth %d)\n", cli.Paint(styled, color, string(rep.Status)), id, rep.Receipts, rep.Depth)
			if out.Receipt != nil {
				fmt.Fprintf(io.Out, "  %s %s#%s %s  run %s\n", out.Receipt.Kind, out.Receipt.SkillName, out.Receipt.Method, out.Receipt.Outcome, out.Receipt.RunID)
			}
			for _, p := range rep.Problems {
				fmt.Fprintf(io.Out, "  %s: %s [%s]\n", p.ReceiptID, p.Message, p.Code)
			}
			for _, sk := range rep.SkippedKeys {
				fmt.Fprintf(io.Err, "warning: trusted key skipped: %s [%s]\n", sk.Message, sk.Code)
			}
		}
		if rep.Status != receipt.StatusVerified {
			return cli.ExitFailed
		}
		return cli.ExitOK
	})
}
