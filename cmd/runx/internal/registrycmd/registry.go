// Package registrycmd is the `runx registry` command group: packaging a
// skill or connector as the registry stores it, the registry server, and
// the client that publishes, searches, installs and trusts. Each verb is
// its own file; kernel/registry (and its server and client packages) own
// the logic, this package only parses and presents.
package registrycmd

import (
	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/spf13/cobra"
)

// New wires `runx registry` and its verbs.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "registry", Short: "Package, publish, find, install and trust signed skills and connectors, and serve a registry"}
	cmd.AddCommand(NewPackage(f, nil))
	cmd.AddCommand(NewPublish(f, nil), NewSearch(f, nil), NewInstall(f, nil), NewTrust(f, nil))
	cmd.AddCommand(NewServe(f, nil), NewKey(f, nil), NewToken(f, nil), NewNamespace(f, nil))
	return cmd
}
