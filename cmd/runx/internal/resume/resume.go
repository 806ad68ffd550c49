// Package resume is `runx resume <run-id> <file|->`: admit a resume document
// (runx.resume.v1) into a paused run and drive it on.
package resume

import (
	"context"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/cmd/runx/internal/drive"
	"github.com/runxhq/runx/cmd/runx/internal/skill"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory       *cli.Factory
	RunID         string
	Document      string
	PackageDigest string
	ClosureDigest string
	JSON          bool
	Drive         drive.Flags
	MaxSpend      cli.MaxSpend
	// Decisions are the person's decisions given on the command line
	// (--approve, --decline), each bound to the request digest it names.
	Decisions []Decision
	// Reason is why, for every decision the command line gives (--reason).
	Reason string
	// Answers are a person's answers to an ask's questions given on the
	// command line (--answer), each bound to the request digest it names.
	Answers []Answer
}

// Answer is one --answer: the option a person picked for one question of
// the request at Address, whose digest they were shown.
type Answer struct {
	Address  string
	Digest   string
	Question string
	Option   string
}

// Decision is one --approve or --decline: the request's address and the
// digest of the request the person was shown.
type Decision struct {
	Address  string
	Digest   string
	Approved bool
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil resumes the run.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	var approve, decline, answer []string
	cmd := &cobra.Command{
		Use:   "resume <run-id> [<answers.json|->] [--approve|--decline <address>@<digest> --reason <text>]",
		Short: "Continue a paused run with answers (agent lane) and approvals (person's lane), or close it",
		Long: "Continue a paused run. The document binds every entry to the request it\n" +
			"answers by address and request_digest; one entry that names no request the\n" +
			"run waits on refuses the whole document and changes nothing. A document\n" +
			"{\"close\": {\"outcome\": \"declined\"|\"superseded\"}} seals a run nobody drives.\n\n" +
			"--approve and --decline decide an approval without a document: give the\n" +
			"address and request digest `runx history <run-id>` shows\n" +
			"(make@sha256:…) and --reason; --answer pick@sha256:…:channel=email picks an\n" +
			"option of an ask's question. The entry they build is the document's, so a\n" +
			"request that changed since it was shown is refused (resume_digest_mismatch).",
		Args: cli.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunID = args[0]
			if len(args) == 2 {
				opts.Document = args[1]
			}
			if err := opts.Drive.Check(cmd); err != nil {
				return err
			}
			if err := opts.parseDecisions(approve, decline, cmd.Flags().Changed("reason")); err != nil {
				return err
			}
			if err := opts.parseAnswers(answer); err != nil {
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
	cmd.Flags().StringVar(&opts.PackageDigest, "package-digest", "", "refuse unless the run is bound to this package digest")
	cmd.Flags().StringVar(&opts.ClosureDigest, "closure-digest", "", "refuse unless the run is bound to this closure digest")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	cmd.Flags().StringArrayVar(&approve, "approve", nil, "approve the request at `address@digest`, as runx history <run-id> shows it (repeatable)")
	cmd.Flags().StringArrayVar(&decline, "decline", nil, "decline the request at `address@digest`, as runx history <run-id> shows it (repeatable)")
	cmd.Flags().StringArrayVar(&answer, "answer", nil, "answer one question of the ask at address@digest with one of its options: `address@digest:question=option` (repeatable)")
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why the requests given with --approve or --decline are decided so (recorded in the run and its receipt)")
	return cmd
}

// Run resumes and presents the envelope.
func Run(ctx context.Context, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	return opts.Factory.WithKernel(ctx, opts.JSON, func(k *run.Kernel) cli.ExitCode {
		var doc []byte
		if opts.Document != "" {
			read, err := cli.ReadInputsDocument(io.In, k.Options.Workspace, k.Options.Cwd, opts.Document)
			if err != nil {
				return cli.ReportError(io, opts.JSON, err)
			}
			doc = read
		}
		doc, err := opts.withDecisions(doc)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		limit, err := opts.MaxSpend.Limit()
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		driver, err := opts.Drive.Prepare(k)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		pctx, stop := io.Progress(ctx, opts.JSON)
		env, err := k.Resume(pctx, run.ResumeRequest{RunID: opts.RunID, Document: doc, PackageDigest: opts.PackageDigest, ClosureDigest: opts.ClosureDigest, MaxSpend: limit})
		stop()
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if env, err = drive.Work(ctx, io, opts.JSON, driver, env); err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		return skill.Present(ctx, io, opts.JSON, env)
	})
}
