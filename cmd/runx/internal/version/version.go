// Package version is `runx version`.
package version

import (
	"fmt"
	"runtime"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory *cli.Factory
	JSON    bool
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil prints the version.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print runx's version and the plugin protocol it speaks",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// Run prints the version.
func Run(opts *Options) error {
	f := opts.Factory
	info := map[string]any{
		"schema":          "runx.version.v1",
		"runx_version":    cli.Version,
		"plugin_protocol": sdk.ProtocolVersion,
		"sdk_version":     sdk.Version,
		"go_version":      runtime.Version(),
		"first_party":     f.FirstPartyNames(),
	}
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, info)
	}
	fmt.Fprintf(f.IO.Out, "runx %s (plugin protocol v%d, %s)\n", cli.Version, sdk.ProtocolVersion, runtime.Version())
	return nil
}
