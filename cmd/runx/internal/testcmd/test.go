// Package testcmd is `runx test <package|test.yaml>`: run a package's tests
// and end with the line "N passed, N failed".
package testcmd

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/testrun"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory *cli.Factory
	Target  string
	JSON    bool
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil runs the tests.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "test <package|tests/name.yaml>",
		Short: "Run a package's tests deterministically (fixed clock, fixture key, scratch workspace)",
		Args:  cli.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Run(cmd.Context(), opts))
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// Run runs the tests; exit 0 only when every test passed.
func Run(ctx context.Context, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	// A target with no tests fails before the kernel opens the project's
	// state, so it makes no .runx.
	loc, err := opts.Factory.Locator()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if _, _, err := testrun.Find(loc.Options.Cwd, loc.PackageDir, opts.Target); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	return opts.Factory.WithKernel(ctx, opts.JSON, func(k *run.Kernel) cli.ExitCode {
		styled := io.Styled()
		runner := &testrun.Runner{Kernel: k, Keep: true}
		if !opts.JSON {
			runner.Progress = func(r testrun.Result) {
				if r.Status == testrun.ResultPassed {
					fmt.Fprintf(io.Out, "%s %s\n", cli.Paint(styled, "green", "PASS"), r.Name)
					return
				}
				fmt.Fprintf(io.Out, "%s %s\n", cli.Paint(styled, "red", "FAIL"), r.Name)
				for _, f := range r.Failures {
					fmt.Fprintf(io.Out, "    %s\n", f)
				}
			}
		}
		rep, err := runner.Run(ctx, opts.Target)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, rep)
		} else {
			fmt.Fprintf(io.Out, "%d passed, %d failed\n", rep.Passed, rep.Failed)
		}
		if rep.Failed > 0 {
			return cli.ExitFailed
		}
		return cli.ExitOK
	})
}
