// Package authoritycmd is `runx authority save|list|show|remove`: authority
// presets a person gives ahead of time, kept in the runx home for the
// workspaces they list.
package authoritycmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/preset"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// The verbs of `runx authority`.
const (
	VerbSave   = "save"
	VerbList   = "list"
	VerbShow   = "show"
	VerbRemove = "remove"
)

// Options are one `runx authority` verb's arguments.
type Options struct {
	Factory *cli.Factory
	Verb    string
	// Name is the preset's name (save, show, remove).
	Name string
	// File is the authority document to save.
	File string
	// Workspaces are save's --workspace directories.
	Workspaces []string
	JSON       bool
}

// New wires `runx authority` and its verbs. A test passes runF to see the
// options a command line parses to without running anything; nil runs the
// verb.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	if runF == nil {
		runF = Run
	}
	cmd := &cobra.Command{Use: "authority", Short: "Save, list, show and remove authority presets"}
	verb := func(c *cobra.Command, name string, args func(*Options, []string)) *cobra.Command {
		opts := &Options{Factory: f, Verb: name}
		c.RunE = func(_ *cobra.Command, a []string) error {
			args(opts, a)
			return runF(opts)
		}
		c.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
		if name == VerbSave {
			c.Flags().StringArrayVar(&opts.Workspaces, "workspace", nil, "a workspace the preset applies in (default: this one)")
		}
		cmd.AddCommand(c)
		return c
	}
	verb(&cobra.Command{
		Use:   "save <name> <file>",
		Short: "Keep an authority document under a name, for this workspace (and any --workspace)",
		Args:  cli.ExactArgs(2),
	}, VerbSave, func(o *Options, a []string) { o.Name, o.File = a[0], a[1] })
	verb(&cobra.Command{Use: "list", Short: "List saved presets", Args: cli.NoArgs}, VerbList, func(*Options, []string) {})
	verb(&cobra.Command{Use: "show <name>", Short: "Show one preset", Args: cli.ExactArgs(1)}, VerbShow, func(o *Options, a []string) { o.Name = a[0] })
	verb(&cobra.Command{Use: "remove <name>", Short: "Remove a preset", Args: cli.ExactArgs(1)}, VerbRemove, func(o *Options, a []string) { o.Name = a[0] })
	return cmd
}

// Run runs one verb and presents what it did.
func Run(opts *Options) error {
	f := opts.Factory
	report := func(err error) error { return cli.Exit(cli.ReportError(f.IO, opts.JSON, err)) }
	emit := func(v any, human func()) error {
		if opts.JSON {
			return cli.PrintJSON(f.IO.Out, v)
		}
		human()
		return nil
	}
	o, err := run.ResolveOptions(f.Options())
	if err != nil {
		return report(err)
	}
	switch opts.Verb {
	case VerbSave:
		raw, err := os.ReadFile(opts.File)
		if err != nil {
			return report(cli.Usagef("cannot read %s", opts.File))
		}
		workspaces := opts.Workspaces
		if len(workspaces) == 0 {
			workspaces = []string{o.Workspace}
		}
		ids := make([]string, 0, len(workspaces))
		for _, w := range workspaces {
			if !filepath.IsAbs(w) {
				w = filepath.Join(o.Cwd, w)
			}
			// A directory inside a workspace stands for that workspace,
			// as a run started there resolves it.
			w = run.FindWorkspace(w, o.HomeDir)
			id, err := preset.WorkspaceID(w)
			if err != nil {
				return report(cli.Usagef("workspace %s does not resolve: %v", w, err))
			}
			ids = append(ids, id)
		}
		pr, err := preset.Save(o.HomeDir, opts.Name, raw, ids)
		if err != nil {
			return report(err)
		}
		return emit(pr, func() {
			fmt.Fprintf(f.IO.Out, "saved authority preset %s (%s) for %d workspace(s)\n", pr.Name, pr.Digest, len(pr.Workspaces))
		})
	case VerbList:
		all, err := preset.List(o.HomeDir)
		if err != nil {
			return report(err)
		}
		return emit(map[string]any{"schema": "runx.authority_presets.v1", "presets": all}, func() {
			for _, p := range all {
				fmt.Fprintf(f.IO.Out, "%-20s %s  %d workspace(s)\n", p.Name, p.Digest, len(p.Workspaces))
			}
		})
	case VerbShow:
		p, err := preset.Show(o.HomeDir, opts.Name)
		if err != nil {
			return report(err)
		}
		return emit(p, func() { fmt.Fprintf(f.IO.Out, "%s %s\n%s\n", p.Name, p.Digest, p.Authority) })
	case VerbRemove:
		if err := preset.Remove(o.HomeDir, opts.Name); err != nil {
			return report(err)
		}
		return emit(map[string]any{"schema": "runx.authority_preset_removed.v1", "name": opts.Name}, func() { fmt.Fprintf(f.IO.Out, "removed %s\n", opts.Name) })
	}
	return report(cli.Usagef("unknown authority verb %q", opts.Verb))
}
