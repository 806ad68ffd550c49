// Package skill is `runx skill <ref>[#method] [method]`: run one method of a
// skill package and print its runx.skill_run.v1 envelope.
package skill

import (
	"context"
	"fmt"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/cmd/runx/internal/drive"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/preset"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// Options are the command's parsed arguments and dependencies.
type Options struct {
	Factory       *cli.Factory
	Ref           string
	Method        string
	Pairs         []string
	JSONPairs     []string
	InputsFile    string
	Act           string
	Authority     string
	Preset        string
	PackageDigest string
	ClosureDigest string
	// Digest is the content digest a registry skill must have (--digest).
	Digest   string
	JSON     bool
	Drive    drive.Flags
	MaxSpend cli.MaxSpend
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil runs the skill.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "skill <ref>[#method] [method]",
		Short: "Run one method of a skill package",
		Long: "Run one method of a skill package and seal it with a signed receipt.\n\n" +
			"The method is the one named after # or as the second argument, else the\n" +
			"package's default_method, else its only method.",
		Example: "  runx skill examples/hello-world -i message=hello --json",
		Args:    cli.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if len(args) == 2 {
				opts.Method = args[1]
			}
			if opts.Authority != "" && opts.Preset != "" {
				return cli.Usagef("--run-authority and --authority are exclusive: a run takes one or the other")
			}
			if err := opts.checkInputs(); err != nil {
				return err
			}
			if err := opts.Drive.Check(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Run(cmd.Context(), opts))
		},
	}
	opts.Drive.Register(cmd)
	opts.MaxSpend.Register(cmd)
	opts.registerInputs(cmd)
	cmd.Flags().StringVar(&opts.Act, "act", "", "the act the host states for the run ($run.act)")
	cmd.Flags().StringVar(&opts.Authority, "run-authority", "", "the authority the host states for this run, as JSON")
	cmd.Flags().StringVar(&opts.Preset, "authority", "", "apply a saved authority preset (only in a workspace it lists)")
	cmd.Flags().StringVar(&opts.PackageDigest, "package-digest", "", "refuse unless the package's digest is this")
	cmd.Flags().StringVar(&opts.ClosureDigest, "closure-digest", "", "refuse unless the closure's digest is this")
	cmd.Flags().StringVar(&opts.Digest, "digest", "", "refuse a registry skill unless its content digest is this")
	cmd.Flags().StringVar(&f.RegistryURL, "registry", "", "the registry a missing registry skill is fetched from (default RUNX_REGISTRY_URL)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	cmd.AddCommand(NewInspect(f, nil))
	return cmd
}

// Run runs the skill and presents the envelope; it returns the exit code.
func Run(ctx context.Context, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	// Everything that can fail before the run needs state is checked
	// before the kernel opens it, so such a failure makes no .runx.
	loc, err := opts.Factory.Locator()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	// A registry skill the project lacks is fetched by the kernel before
	// the run, and checked then.
	if !loc.Fetches(opts.Ref) {
		if _, _, err := loc.Package(opts.Ref, opts.Method); err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
	}
	src, err := opts.inputs(loc)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	limit, err := opts.MaxSpend.Limit()
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	req := run.SkillRequest{Ref: opts.Ref, Method: opts.Method, Inputs: src, Act: opts.Act,
		PackageDigest: opts.PackageDigest, ClosureDigest: opts.ClosureDigest, MaxSpend: limit,
		RegistryDigest: opts.Digest}
	if opts.Authority != "" {
		req.Authority = []byte(opts.Authority)
	}
	if opts.Preset != "" {
		raw, err := preset.Resolve(loc.Options.HomeDir, opts.Preset, loc.Options.Workspace)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		req.Authority = raw
	}
	if _, err := run.ParseAuthority(req.Authority); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	return opts.Factory.WithKernel(ctx, opts.JSON, func(k *run.Kernel) cli.ExitCode {
		driver, err := opts.Drive.Prepare(k)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		pctx, stop := io.Progress(ctx, opts.JSON)
		env, err := k.Skill(pctx, req)
		stop()
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if env, err = drive.Work(ctx, io, opts.JSON, driver, env); err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		return Present(ctx, io, opts.JSON, env)
	})
}

// Present prints a run's envelope and returns the exit code it means.
func Present(ctx context.Context, io *cli.IO, asJSON bool, env *contract.SkillRun) cli.ExitCode {
	if asJSON {
		_ = cli.PrintJSON(io.Out, env)
	} else {
		present(io, env)
	}
	return cli.ExitFor(ctx, env)
}

func present(io *cli.IO, env *contract.SkillRun) {
	styled := io.Styled()
	if env.Status != contract.StatusSealed {
		presentPaused(io, env)
		return
	}
	mark, color := "✓", "green"
	if env.Outcome != seal.OutcomeCompleted {
		mark, color = "✗", "red"
	}
	fmt.Fprintf(io.Out, "%s %s#%s %s  %s\n", cli.Paint(styled, color, mark), env.SkillName, env.Method,
		cli.Paint(styled, "bold", strings.TrimSpace(string(env.Outcome)+" "+string(env.SealReason))), cli.Paint(styled, "dim", env.RunID))
	if env.Error != nil {
		fmt.Fprintf(io.Out, "  error:   %s [%s]\n", env.Error.Message, env.Error.Code)
		if env.Refusal != nil && string(env.Result) != "null" {
			// A refused run's result is what its steps produced.
			cli.PrintValue(io.Out, "  result:  ", env.Result, wholeResult(env.RunID))
		}
	} else {
		cli.PrintValue(io.Out, "  result:  ", env.Result, wholeResult(env.RunID))
	}
	if env.Trace != nil {
		for _, s := range env.Trace.Steps {
			fmt.Fprintf(io.Out, "  step %-12s %-8s %s\n", s.StepID, s.Status, cli.Paint(styled, "dim", s.ReceiptID))
		}
	}
	fmt.Fprintf(io.Out, "  receipt: %s\n", env.ReceiptID)
}

// wholeResult is where a sealed run's whole result is read: its envelope,
// in the run's record.
func wholeResult(runID string) string {
	return "runx history " + runID + " --json, at envelope.result"
}

func presentPaused(io *cli.IO, env *contract.SkillRun) {
	styled := io.Styled()
	fmt.Fprintf(io.Out, "%s %s#%s %s  %s\n", cli.Paint(styled, "yellow", "…"), env.SkillName, env.Method, cli.Paint(styled, "bold", string(env.Status)), cli.Paint(styled, "dim", env.RunID))
	for _, r := range env.Requests {
		fmt.Fprintf(io.Out, "  waiting %-20s %-9s %s\n", r.Address, r.Kind, r.RequestDigest)
	}
	for _, r := range env.RefusedAnswers {
		fmt.Fprintf(io.Out, "  refused answer %s: %s [%s]\n", r.Address, r.Error.Message, r.Error.Code)
	}
	if env.Resume != "" {
		fmt.Fprintf(io.Out, "  continue with: %s  (answers_template in --json output)\n", env.Resume)
	}
	for _, r := range env.Requests {
		if r.Kind == contract.RequestApproval || r.Kind == contract.RequestQuestion {
			fmt.Fprintf(io.Out, "  to decide: runx history %s shows what each request would do and the runx resume line that decides it\n", env.RunID)
			break
		}
	}
}

// registerInputs gives a command the three ways to state a method's
// inputs, the same on runx skill and runx skill inspect.
func (opts *Options) registerInputs(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&opts.Pairs, "input", "i", nil, "an input as name=value, typed by the method's declaration")
	cmd.Flags().StringArrayVar(&opts.JSONPairs, "input-json", nil, "an input as name=<json>")
	cmd.Flags().StringVar(&opts.InputsFile, "inputs", "", "all inputs as one JSON object from a file in the workspace, or - for stdin")
}

// checkInputs refuses a command line that states inputs both ways.
func (opts *Options) checkInputs() error {
	if opts.InputsFile != "" && (len(opts.Pairs) > 0 || len(opts.JSONPairs) > 0) {
		return cli.Usagef("--inputs is exclusive with -i and --input-json")
	}
	return nil
}

// inputs reads the inputs the command line states: the pairs, or the
// document --inputs names.
func (opts *Options) inputs(loc *run.Locator) (pkg.InputSource, error) {
	src := pkg.InputSource{Pairs: opts.Pairs, JSONPairs: opts.JSONPairs}
	if opts.InputsFile != "" {
		doc, err := cli.ReadInputsDocument(opts.Factory.IO.In, loc.Options.Workspace, loc.Options.Cwd, opts.InputsFile)
		if err != nil {
			return src, err
		}
		src.Document, src.HasDocument = doc, true
	}
	return src, nil
}
