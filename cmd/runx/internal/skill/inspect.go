package skill

import (
	"fmt"
	"sort"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/preset"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// NewInspect wires `runx skill inspect <ref>[#method]`; runF is New's seam.
func NewInspect(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "inspect <ref>[#method] [method]",
		Short: "Show a method's steps, what each may change, and what the approval floor would decide, without running anything",
		Args:  cli.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if len(args) == 2 {
				opts.Method = args[1]
			}
			if opts.Authority != "" && opts.Preset != "" {
				return cli.Usagef("--run-authority and --authority are exclusive")
			}
			if err := opts.checkInputs(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(inspect(c, opts))
		},
	}
	cmd.Flags().StringVar(&opts.Authority, "run-authority", "", "the authority to inspect under, as JSON")
	cmd.Flags().StringVar(&opts.Preset, "authority", "", "inspect under a saved authority preset")
	opts.registerInputs(cmd)
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

func inspect(c *cobra.Command, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	// What can fail before inspection needs state fails before the kernel
	// opens it, so it makes no .runx.
	loc, err := opts.Factory.Locator()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if _, _, err := loc.Package(opts.Ref, opts.Method); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	req := run.SkillRequest{Ref: opts.Ref, Method: opts.Method, Authority: []byte(opts.Authority)}
	if opts.Preset != "" {
		raw, err := preset.Resolve(loc.Options.HomeDir, opts.Preset, loc.Options.Workspace)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		req.Authority = raw
	}
	if req.Inputs, err = opts.inputs(loc); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	return opts.Factory.ReadKernel(c.Context(), opts.JSON, func(k *run.Kernel) cli.ExitCode {
		ins, err := k.Inspect(c.Context(), req)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, ins)
			return cli.ExitOK
		}
		fmt.Fprintf(io.Out, "%s#%s  %s\n", ins.SkillName, ins.Method, ins.Description)
		if outputs, ok := ins.Outputs.(map[string]*pkg.OutputSpec); ok {
			printPackets(io, outputs, "  ")
		}
		printSteps(io, ins.Steps, "  ")
		if ins.RefusedAtStart != nil {
			fmt.Fprintf(io.Out, "refused at start: %s [%s]\n", ins.RefusedAtStart.Message, ins.RefusedAtStart.Code)
		}
		return cli.ExitOK
	})
}

func printSteps(io *cli.IO, steps []run.InspectedStep, indent string) {
	for _, s := range steps {
		decision := "changes nothing"
		if s.Floor != nil {
			decision = fmt.Sprintf("%s: %s", s.Floor.Verdict, s.Floor.Rule)
		}
		if s.Waits != "" {
			decision = "waits " + string(s.Waits)
		}
		if s.Approval != nil {
			decision = fmt.Sprintf("%s; carries its own approval (%s)", decision, s.Approval.Reason)
		}
		fmt.Fprintf(io.Out, "%s%-16s %-8s %s\n", indent, s.Address, s.Kind, decision)
		if s.Cost != nil {
			price := "an unknown price (metered)"
			if s.Cost.USDMicro != nil {
				price = fmt.Sprintf("%d micro-USD", *s.Cost.USDMicro)
			}
			fmt.Fprintf(io.Out, "%s  cost: %s per %s (%s)\n", indent, price, s.Cost.Per, s.Cost.Source)
		}
		if s.CostRefused != nil {
			fmt.Fprintf(io.Out, "%s  refused under the money limit: %s [%s]\n", indent, s.CostRefused.Message, s.CostRefused.Code)
		}
		printPackets(io, s.Outputs, indent+"  ")
		printSteps(io, s.Children, indent+"  ")
	}
}

// printPackets says which packet each output that names one is.
func printPackets(io *cli.IO, outputs map[string]*pkg.OutputSpec, indent string) {
	names := make([]string, 0, len(outputs))
	for name, o := range outputs {
		if o.Packet != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(io.Out, "%soutput %s: packet %s\n", indent, name, outputs[name].Packet)
	}
}
