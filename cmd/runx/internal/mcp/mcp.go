// Package mcp is `runx mcp <skill-ref...>` and `runx mcp --run <run-id>`:
// serve skill methods, and the turn tools over the runs they open or over
// one paused run, as an MCP server on stdio. Stdout carries nothing but the
// protocol; logs go to stderr.
package mcp

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/agent"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/preset"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory  *cli.Factory
	Refs     []string
	RunID    string
	Preset   string
	MaxSpend cli.MaxSpend
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil serves the session.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "mcp <skill-ref...> | mcp --run <run-id>",
		Short: "Serve skills, and the agent turns of the runs they open, as MCP tools over stdio",
		Long: "Serve each skill reference (ref or ref#method) as an MCP tool over stdio, beside the\n" +
			"turn tools (turn_list, turn_status, turn_read, turn_call, turn_complete, call_cancel)\n" +
			"over the runs those calls open; or, with --run, the turn tools of one paused run.\n" +
			"Authority comes only from a saved preset (--authority), never from the command line;\n" +
			"--max-spend can only narrow the money limit of the runs the session starts.",
		Example: "  runx mcp examples/hello-world\n  runx mcp --run run_0123456789abcdefghjkmnpqrs",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Refs = args
			switch {
			case opts.RunID != "" && len(args) > 0:
				return cli.Usagef("--run serves one run's turns; give it no skill references")
			case opts.RunID == "" && len(args) == 0:
				return cli.Usagef("give at least one skill reference, or --run <run-id>")
			case opts.RunID != "" && cmd.Flags().Changed("max-spend"):
				return cli.Usagef("--max-spend narrows the runs the session starts; --run serves a run already started, whose limit runx resume --max-spend narrows")
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Run(cmd.Context(), opts))
		},
	}
	cmd.Flags().StringVar(&opts.RunID, "run", "", "serve the agent turns of this paused run")
	cmd.Flags().StringVar(&opts.Preset, "authority", "", "run under a saved authority preset (only in a workspace it lists)")
	opts.MaxSpend.Register(cmd)
	return cmd
}

// Run serves one session until the client closes stdin or a signal stops it.
// One kernel serves the whole session, so plugin workers are reused.
func Run(ctx context.Context, opts *Options) cli.ExitCode {
	streams := opts.Factory.IO
	// A reference that names no package fails before the kernel opens the
	// project's state, so it makes no .runx.
	loc, err := opts.Factory.Locator()
	if err != nil {
		return cli.ReportError(streams, false, err)
	}
	for _, ref := range opts.Refs {
		if _, _, err := loc.Package(ref, ""); err != nil {
			return cli.ReportError(streams, false, err)
		}
	}
	return opts.Factory.WithKernel(ctx, false, func(k *run.Kernel) cli.ExitCode {
		if opts.RunID != "" {
			if err := agent.RefuseHosted(ctx, k, opts.RunID); err != nil {
				return cli.ReportError(streams, false, err)
			}
		}
		o := kmcp.Options{Refs: opts.Refs, RunID: opts.RunID, Version: cli.Version}
		if opts.Preset != "" {
			raw, err := preset.Resolve(k.Options.HomeDir, opts.Preset, k.Options.Workspace)
			if err != nil {
				return cli.ReportError(streams, false, err)
			}
			o.Authority = raw
		}
		limit, err := opts.MaxSpend.Limit()
		if err != nil {
			return cli.ReportError(streams, false, err)
		}
		if n, ok := limit.Value(); ok {
			if o.Authority, err = connector.WithSpendLimit(o.Authority, n); err != nil {
				return cli.ReportError(streams, false, err)
			}
		}
		srv, err := kmcp.New(k, o)
		if err != nil {
			return cli.ReportError(streams, false, err)
		}
		err = srv.Run(ctx, &mcp.IOTransport{Reader: readCloser{streams.In}, Writer: writeCloser{streams.Out}})
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, cli.ErrTerminated):
			return cli.ExitTerminated
		case errors.Is(cause, cli.ErrInterrupted):
			return cli.ExitInterrupted
		}
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return cli.ReportError(streams, false, err)
		}
		return cli.ExitOK
	})
}

type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
