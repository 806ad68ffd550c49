// Package pluginpin is `runx plugin pin <name>`: record a third-party
// plugin binary's sha256 in .runx/plugins.lock so runx will start it.
package pluginpin

import (
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/spf13/cobra"
)

// New wires `runx plugin` with its `pin` verb. (`runx plugin serve` is
// dispatched by main before cobra runs.)
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Short: "Manage third-party plugins"}
	var asJSON bool
	pin := &cobra.Command{
		Use:   "pin <name>",
		Short: "Pin runx-plugin-<name> by its sha256 in .runx/plugins.lock",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			k, err := f.Kernel(c.Context())
			if err != nil {
				return cli.Exit(cli.ReportError(f.IO, asJSON, err))
			}
			defer k.Close()
			path, sum, err := k.Discovery().Pin(args[0])
			if err != nil {
				return cli.Exit(cli.ReportError(f.IO, asJSON, err))
			}
			if asJSON {
				return cli.PrintJSON(f.IO.Out, map[string]any{"schema": "runx.plugin_pin.v1", "name": args[0], "path": path, "sha256": sum})
			}
			fmt.Fprintf(f.IO.Out, "pinned %s at %s (sha256 %s)\n", args[0], path, sum)
			return nil
		},
	}
	pin.Flags().BoolVarP(&asJSON, "json", "j", false, "print one JSON document")
	cmd.AddCommand(pin)
	return cmd
}
