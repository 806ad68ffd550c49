package processcmd

import (
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// StopOptions are `runx process stop`'s arguments.
type StopOptions struct {
	Factory   *cli.Factory
	ProcessID string
	JSON      bool
}

// NewStop wires `runx process stop`. A test passes runF to see the options a
// command line parses to without running anything; nil runs it.
func NewStop(f *cli.Factory, runF func(*StopOptions) error) *cobra.Command {
	opts := &StopOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "stop <process-id>",
		Short: "Stop a process: terminate it, then kill it",
		Args:  cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ProcessID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(runStop(c, opts))
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document (runx.process.v1)")
	return cmd
}

func runStop(c *cobra.Command, opts *StopOptions) cli.ExitCode {
	io := opts.Factory.IO
	return opts.Factory.ReadKernel(c.Context(), opts.JSON, func(k *run.Kernel) cli.ExitCode {
		var doc json.RawMessage
		if err := invoke(c.Context(), k, stopCapability, map[string]any{"process_id": opts.ProcessID}, &doc); err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, doc)
			return cli.ExitOK
		}
		var p Process
		if err := json.Unmarshal(doc, &p); err != nil {
			return cli.ReportError(io, false, err)
		}
		fmt.Fprintf(io.Out, "%s %s\n", p.ProcessID, p.State)
		return cli.ExitOK
	})
}
