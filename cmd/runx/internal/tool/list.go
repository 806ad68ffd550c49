package tool

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/spf13/cobra"
)

// ListOptions are `runx tool list`'s arguments.
type ListOptions struct {
	Factory *cli.Factory
	JSON    bool
}

// NewList wires `runx tool list`. A test passes runF to see the options a
// command line parses to without running anything; nil lists.
func NewList(f *cli.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every capability runx can call: the kernel's own, the compiled-in plugins' and each pinned plugin's",
		Long: `List every capability this runx can call, with its effect and the plugin
that answers it: the tools the kernel answers itself, those of the plugins
compiled into runx (described without starting them), and those of each
third-party plugin the project pins in .runx/plugins.lock (started, pin
checked and handshaken, as a run would, to ask what it serves). A pinned
plugin that cannot start is listed with why, and the command exits 1.`,
		Args: cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(list(c, opts))
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// Listed is one capability of the list.
type Listed struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	Effect  string `json:"effect"`
	Plugin  string `json:"plugin"`
	Version string `json:"version"`
}

// Unlisted is a pinned plugin whose capabilities could not be read.
type Unlisted struct {
	Plugin string              `json:"plugin"`
	Error  *contract.ErrorBody `json:"error"`
}

// Listing is what `runx tool list --json` prints.
type Listing struct {
	Schema   string     `json:"schema"`
	Tools    []Listed   `json:"tools"`
	Unlisted []Unlisted `json:"unlisted"`
}

// ListSchema names the --json document.
const ListSchema = "runx.tool_list.v1"

func list(c *cobra.Command, opts *ListOptions) cli.ExitCode {
	f := opts.Factory
	out := Listing{Schema: ListSchema, Tools: []Listed{}, Unlisted: []Unlisted{}}
	add := func(plugin, version string, defs []sdk.Definition) {
		for _, d := range defs {
			out.Tools = append(out.Tools, Listed{ID: d.ID, Summary: d.Summary, Effect: d.Effect, Plugin: plugin, Version: version})
		}
	}
	add(native.KernelOwner, cli.Version, native.Definitions())
	for _, name := range f.FirstPartyNames() {
		info := f.FirstParty[name]()
		add(info.Name, info.Version, info.Capabilities)
	}
	code := f.ReadKernel(c.Context(), opts.JSON, func(k *run.Kernel) cli.ExitCode {
		lock, err := host.ReadLock(k.Options.ProjectDir)
		if err != nil {
			return cli.ReportError(f.IO, opts.JSON, err)
		}
		for _, name := range lock.Names() {
			info, _, err := k.DescribePlugin(c.Context(), name)
			if err != nil {
				out.Unlisted = append(out.Unlisted, Unlisted{Plugin: name, Error: contract.BodyOf(err)})
				continue
			}
			add(info.Name, info.Version, info.Capabilities)
		}
		return cli.ExitOK
	})
	if code != cli.ExitOK {
		return code
	}
	sort.SliceStable(out.Tools, func(i, j int) bool { return out.Tools[i].ID < out.Tools[j].ID })
	if opts.JSON {
		_ = cli.PrintJSON(f.IO.Out, out)
	} else {
		fmt.Fprintf(f.IO.Out, "%-26s  %-8s  %-18s  %s\n", "CAPABILITY", "EFFECT", "PLUGIN", "SUMMARY")
		for _, t := range out.Tools {
			fmt.Fprintf(f.IO.Out, "%-26s  %-8s  %-18s  %s\n", t.ID, t.Effect, t.Plugin, firstSentence(t.Summary))
		}
		for _, u := range out.Unlisted {
			fmt.Fprintf(f.IO.Out, "plugin %s (pinned in %s) did not start: %s [%s]\n", u.Plugin,
				filepath.Join(".runx", host.LockFileName), u.Error.Message, u.Error.Code)
		}
	}
	if len(out.Unlisted) > 0 {
		return cli.ExitFailed
	}
	return cli.ExitOK
}

// firstSentence is a summary's first sentence, for a table a person reads
// (runx tool inspect and --json give it whole).
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
