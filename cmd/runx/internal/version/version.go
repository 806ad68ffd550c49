// Package version is `runx version`.
package version

import (
	"fmt"
	"runtime"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/spf13/cobra"
)

// New wires the command.
func New(f *cli.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print runx's version and the plugin protocol it speaks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := map[string]any{
				"schema":          "runx.version.v1",
				"runx_version":    cli.Version,
				"plugin_protocol": sdk.ProtocolVersion,
				"sdk_version":     sdk.Version,
				"go_version":      runtime.Version(),
				"first_party":     f.FirstPartyNames(),
			}
			if asJSON {
				return cli.PrintJSON(f.IO.Out, info)
			}
			fmt.Fprintf(f.IO.Out, "runx %s (plugin protocol v%d, %s)\n", cli.Version, sdk.ProtocolVersion, runtime.Version())
			return nil
		},
	}
	cmd.Flags().BoolVarP(&asJSON, "json", "j", false, "print one JSON document")
	return cmd
}
