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

// New wires `runx authority` and its verbs.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "authority", Short: "Save, list, show and remove authority presets"}
	var asJSON bool
	var workspaces []string
	home := func() (run.Options, error) { return run.ResolveOptions(f.Options()) }
	report := func(err error) error { return cli.Exit(cli.ReportError(f.IO, asJSON, err)) }
	emit := func(v any, human func()) error {
		if asJSON {
			return cli.PrintJSON(f.IO.Out, v)
		}
		human()
		return nil
	}
	save := &cobra.Command{
		Use:   "save <name> <file>",
		Short: "Keep an authority document under a name, for this workspace (and any --workspace)",
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			o, err := home()
			if err != nil {
				return report(err)
			}
			raw, err := os.ReadFile(args[1])
			if err != nil {
				return report(cli.Usagef("cannot read %s", args[1]))
			}
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
			pr, err := preset.Save(o.HomeDir, args[0], raw, ids)
			if err != nil {
				return report(err)
			}
			return emit(pr, func() {
				fmt.Fprintf(f.IO.Out, "saved authority preset %s (%s) for %d workspace(s)\n", pr.Name, pr.Digest, len(pr.Workspaces))
			})
		},
	}
	save.Flags().StringArrayVar(&workspaces, "workspace", nil, "a workspace the preset applies in (default: this one)")
	list := &cobra.Command{
		Use: "list", Short: "List saved presets", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o, err := home()
			if err != nil {
				return report(err)
			}
			all, err := preset.List(o.HomeDir)
			if err != nil {
				return report(err)
			}
			return emit(map[string]any{"schema": "runx.authority_presets.v1", "presets": all}, func() {
				for _, p := range all {
					fmt.Fprintf(f.IO.Out, "%-20s %s  %d workspace(s)\n", p.Name, p.Digest, len(p.Workspaces))
				}
			})
		},
	}
	show := &cobra.Command{
		Use: "show <name>", Short: "Show one preset", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o, err := home()
			if err != nil {
				return report(err)
			}
			p, err := preset.Show(o.HomeDir, args[0])
			if err != nil {
				return report(err)
			}
			return emit(p, func() { fmt.Fprintf(f.IO.Out, "%s %s\n%s\n", p.Name, p.Digest, p.Authority) })
		},
	}
	remove := &cobra.Command{
		Use: "remove <name>", Short: "Remove a preset", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o, err := home()
			if err != nil {
				return report(err)
			}
			if err := preset.Remove(o.HomeDir, args[0]); err != nil {
				return report(err)
			}
			return emit(map[string]any{"schema": "runx.authority_preset_removed.v1", "name": args[0]}, func() { fmt.Fprintf(f.IO.Out, "removed %s\n", args[0]) })
		},
	}
	for _, c := range []*cobra.Command{save, list, show, remove} {
		c.Flags().BoolVarP(&asJSON, "json", "j", false, "print one JSON document")
		cmd.AddCommand(c)
	}
	return cmd
}
