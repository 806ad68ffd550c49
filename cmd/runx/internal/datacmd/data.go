// Package datacmd is `runx data`: operator commands on data-plane stores
// that run out of band, outside any skill run. It parses and presents; the
// kernel's data services do the work.
package datacmd

import (
	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/spf13/cobra"
)

// New wires `runx data` and its verbs.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Operate on data-plane stores out of band (migrate)",
	}
	cmd.AddCommand(NewMigrate(f, nil))
	return cmd
}
