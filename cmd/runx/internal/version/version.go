// Package version is `runx version`.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"

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
		Short: "Print runx's version, the commit it was built from and the plugin protocol it speaks",
		Long: `Print runx's release version, the commit and date of the source it was
built from, and the plugin protocol version the host negotiates with every
plugin (a plugin speaking another major version is refused with
plugin_protocol_unsupported).

The commit and its date come from the build's version-control stamp, which
go build and go install record when they build inside a git checkout; a
binary built without one (go run, -buildvcs=false, a source archive) says
"unknown". "+modified" follows a commit built with uncommitted changes.`,
		Args: cli.NoArgs,
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

// readBuildInfo is debug.ReadBuildInfo; tests replace it to show a stamped
// and an unstamped build.
var readBuildInfo = debug.ReadBuildInfo

// Unknown stands for what the build did not record.
const Unknown = "unknown"

// Build is what the binary's build recorded about its source.
type Build struct {
	// Commit is the vcs.revision stamp.
	Commit string
	// Date is the vcs.time stamp: the built commit's time. Go builds are
	// reproducible, so no wall clock of the build itself is recorded.
	Date string
	// Modified is vcs.modified: the tree held uncommitted changes.
	Modified bool
	// Module is the main module's version (a tag under go install
	// path@version, "(devel)" in a checkout).
	Module string
}

// build reads the build's stamps, Unknown for each one absent.
func build() Build {
	b := Build{Commit: Unknown, Date: Unknown, Module: Unknown}
	info, ok := readBuildInfo()
	if !ok || info == nil {
		return b
	}
	if info.Main.Version != "" {
		b.Module = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				b.Commit = s.Value
			}
		case "vcs.time":
			if s.Value != "" {
				b.Date = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// Run prints the version.
func Run(opts *Options) error {
	f := opts.Factory
	b := build()
	if opts.JSON {
		return cli.PrintJSON(f.IO.Out, map[string]any{
			"schema":          "runx.version.v1",
			"runx_version":    cli.Version,
			"commit":          b.Commit,
			"commit_modified": b.Modified,
			"build_date":      b.Date,
			"module_version":  b.Module,
			"plugin_protocol": sdk.ProtocolVersion,
			"sdk_version":     sdk.Version,
			"go_version":      runtime.Version(),
			"platform":        runtime.GOOS + "/" + runtime.GOARCH,
			"first_party":     f.FirstPartyNames(),
		})
	}
	commit := b.Commit
	if b.Modified {
		commit += "+modified"
	}
	fmt.Fprintf(f.IO.Out, "runx %s\n", cli.Version)
	fmt.Fprintf(f.IO.Out, "  commit:          %s\n", commit)
	fmt.Fprintf(f.IO.Out, "  build date:      %s\n", b.Date)
	fmt.Fprintf(f.IO.Out, "  plugin protocol: runx.plugin.v%d\n", sdk.ProtocolVersion)
	fmt.Fprintf(f.IO.Out, "  go:              %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
