// Package tool is `runx tool list`, every capability runx can call, and
// `runx tool inspect <id>`: a capability's one typed description, read
// from its plugin's Describe answer.
package tool

import (
	"fmt"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/run"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/spf13/cobra"
)

// New wires `runx tool` and its `inspect` verb.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "tool", Short: "List and inspect the capabilities runx can call"}
	cmd.AddCommand(NewList(f, nil), NewInspect(f, nil))
	return cmd
}

// InspectOptions are `runx tool inspect`'s arguments.
type InspectOptions struct {
	Factory *cli.Factory
	ID      string
	JSON    bool
}

// NewInspect wires `runx tool inspect`. A test passes runF to see the
// options a command line parses to without running anything; nil inspects.
func NewInspect(f *cli.Factory, runF func(*InspectOptions) error) *cobra.Command {
	opts := &InspectOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "inspect <capability-id>",
		Short: "Show one capability's contract: schemas, effect, scopes, approval",
		Args:  cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(inspect(c, f, opts.ID, opts.JSON))
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// Description is what `runx tool inspect --json` prints.
type Description struct {
	Schema string `json:"schema"`
	sdk.Definition
	Plugin map[string]any `json:"plugin"`
}

func inspect(c *cobra.Command, f *cli.Factory, id string, asJSON bool) cli.ExitCode {
	return f.ReadKernel(c.Context(), asJSON, func(k *run.Kernel) cli.ExitCode {
		return describe(c, f, k, id, asJSON)
	})
}

func describe(c *cobra.Command, f *cli.Factory, k *run.Kernel, id string, asJSON bool) cli.ExitCode {
	def, ref, err := k.ToolDefinition(c.Context(), id)
	if err != nil {
		return cli.ReportError(f.IO, asJSON, err)
	}
	out := Description{Schema: "runx.tool.v1", Definition: *def,
		Plugin: map[string]any{"name": ref.Name, "version": ref.Version, "protocol": ref.Protocol}}
	if asJSON {
		_ = cli.PrintJSON(f.IO.Out, out)
		return cli.ExitOK
	}
	owner := fmt.Sprintf("%s %s, runx.plugin.v%d", ref.Name, ref.Version, ref.Protocol)
	if ref.Protocol == 0 {
		owner = "answered by the runx kernel itself " + ref.Version
	}
	fmt.Fprintf(f.IO.Out, "%s  (%s)\n  %s\n  effect: %s  approval: %s  idempotent: %v\n",
		def.ID, owner, def.Summary, def.Effect, def.Approval, def.Idempotent)
	if len(def.Scopes) > 0 {
		fmt.Fprintf(f.IO.Out, "  scopes: %s\n", strings.Join(def.Scopes, ", "))
	}
	fmt.Fprintf(f.IO.Out, "  input:  %s\n  output: %s\n", def.InputSchema, def.OutputSchema)
	return cli.ExitOK
}
