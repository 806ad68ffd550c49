// Package list is `runx list skills`: the skills this project can run,
// from the workspace, the core skills this runx carries and the project's
// installed registry skills, each method with its description, its source
// and its trust tier. It reads; it never writes the project's state.
package list

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/spf13/cobra"
)

// Schema names the JSON document `runx list skills --json` prints.
const Schema = "runx.skill_list.v1"

// Options are the command's arguments.
type Options struct {
	Factory *cli.Factory
	JSON    bool
}

// New wires `runx list` and its one subcommand.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List what this project can run",
	}
	cmd.AddCommand(newSkills(f, runF))
	return cmd
}

func newSkills(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List workspace, bundled and installed skills with each method's description",
		Long: "List the skills this project can run: the workspace's skills/, the core skills this\n" +
			"runx carries and the registry skills installed in .runx/added-skills, each with its\n" +
			"methods and their descriptions, its source and its trust tier. An installed skill is\n" +
			"verified against its signature.json as a run would; one that does not verify is\n" +
			"listed with the error that refuses it.",
		Example: "  runx list skills --json",
		Args:    cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Run(cmd.Context(), opts))
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// Document is what --json prints.
type Document struct {
	Schema string                  `json:"schema"`
	Skills []installed.ListedSkill `json:"skills"`
}

// Run lists the skills and presents them.
func Run(_ context.Context, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	loc, err := opts.Factory.Locator()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	skills, err := loc.Skills()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, Document{Schema: Schema, Skills: skills})
		return cli.ExitOK
	}
	styled := io.Styled()
	if len(skills) == 0 {
		fmt.Fprintln(io.Out, "no skills: add one under skills/<name>/, or install one with runx registry install")
	}
	for _, s := range skills {
		fmt.Fprintf(io.Out, "%s  %s  %s\n", cli.Paint(styled, "bold", s.Ref), s.Source, cli.Paint(styled, "dim", s.TrustTier))
		if s.Error != nil {
			fmt.Fprintf(io.Out, "  %s %s [%s]\n", cli.Paint(styled, "red", "refused:"), s.Error.Message, s.Error.Code)
			continue
		}
		for _, m := range s.Methods {
			fmt.Fprintf(io.Out, "  #%-16s %s\n", m.Name, m.Description)
		}
	}
	return cli.ExitOK
}
