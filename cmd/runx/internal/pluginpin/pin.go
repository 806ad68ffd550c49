// Package pluginpin is `runx plugin pin <name>`: record a third-party
// plugin binary's sha256 in .runx/plugins.lock so runx will start it.
package pluginpin

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/spf13/cobra"
)

// New wires `runx plugin` with its `pin` verb. (`runx plugin serve` is
// dispatched by main before cobra runs.)
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Short: "Manage third-party plugins"}
	cmd.AddCommand(NewPin(f, nil))
	return cmd
}

// PinOptions are `runx plugin pin`'s arguments.
type PinOptions struct {
	Factory *cli.Factory
	Name    string
	JSON    bool
}

// NewPin wires `runx plugin pin`. A test passes runF to see the options a
// command line parses to without running anything; nil pins.
func NewPin(f *cli.Factory, runF func(*PinOptions) error) *cobra.Command {
	opts := &PinOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "pin <name>",
		Short: "Pin runx-plugin-<name> by its sha256 in .runx/plugins.lock",
		Args:  cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return Pin(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// Pin records the plugin's checksum and presents it.
func Pin(ctx context.Context, opts *PinOptions) error {
	f := opts.Factory
	k, err := f.Kernel(ctx)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	defer k.Close()
	path, sum, err := k.Discovery().Pin(opts.Name)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.plugin_pin.v1", "name": opts.Name, "path": path, "sha256": sum})
	}
	fmt.Fprintf(f.IO.Out, "pinned %s at %s (sha256 %s)\n", opts.Name, path, sum)
	return nil
}
