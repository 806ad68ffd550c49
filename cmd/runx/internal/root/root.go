// Package root assembles the runx command tree and runs it with signal
// handling and the exit codes of docs/cli.md.
package root

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/authoritycmd"
	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/cmd/runx/internal/completion"
	"github.com/runxhq/runx/cmd/runx/internal/configcmd"
	"github.com/runxhq/runx/cmd/runx/internal/connector"
	"github.com/runxhq/runx/cmd/runx/internal/datacmd"
	"github.com/runxhq/runx/cmd/runx/internal/doctor"
	"github.com/runxhq/runx/cmd/runx/internal/history"
	"github.com/runxhq/runx/cmd/runx/internal/list"
	"github.com/runxhq/runx/cmd/runx/internal/mcp"
	"github.com/runxhq/runx/cmd/runx/internal/notarycmd"
	"github.com/runxhq/runx/cmd/runx/internal/pluginpin"
	"github.com/runxhq/runx/cmd/runx/internal/processcmd"
	"github.com/runxhq/runx/cmd/runx/internal/registrycmd"
	"github.com/runxhq/runx/cmd/runx/internal/registryfetch"
	"github.com/runxhq/runx/cmd/runx/internal/resume"
	"github.com/runxhq/runx/cmd/runx/internal/skill"
	"github.com/runxhq/runx/cmd/runx/internal/testcmd"
	"github.com/runxhq/runx/cmd/runx/internal/tool"
	"github.com/runxhq/runx/cmd/runx/internal/verify"
	"github.com/runxhq/runx/cmd/runx/internal/version"
	"github.com/runxhq/runx/kernel/authority/fieldref"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/kernel/pkg/keyref"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/spf13/cobra"
)

// interruptWindow is the cleanup an interrupt allows before runx exits 130.
const interruptWindow = 2 * time.Second

// New builds the command tree.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "runx",
		Short:         "Run skills under explicit authority and prove every run with signed receipts",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       cli.Version,
	}
	cmd.PersistentFlags().StringVarP(&f.ReceiptDir, "receipt-dir", "R", "", "receipt store directory (default .runx/receipts, or RUNX_RECEIPT_DIR)")
	cmd.PersistentFlags().BoolVar(&f.IO.NoColor, "no-color", false, "no colour, even on a terminal (as NO_COLOR does)")
	cmd.PersistentFlags().BoolVarP(&f.IO.Quiet, "quiet", "q", false, "no progress on stderr while a run works")
	cmd.SetIn(f.IO.In)
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.Err)
	cmd.SetFlagErrorFunc(cli.FlagError)
	cmd.AddCommand(skill.New(f, nil), resume.New(f, nil), verify.New(f, nil), history.New(f, nil), testcmd.New(f, nil), tool.New(f), version.New(f, nil), doctor.New(f, nil), pluginpin.New(f), authoritycmd.New(f, nil), connector.New(f), connector.NewSecret(f), configcmd.New(f, nil), datacmd.New(f), mcp.New(f, nil), processcmd.New(f), registrycmd.New(f), registrycmd.NewLogin(f, nil), list.New(f, nil), notarycmd.New(f), notarycmd.NewNotarize(f, nil))
	cmd.AddCommand(runYAMLTopic(), authorityTopic())
	refuseUnknownSubcommands(cmd)
	completion.Register(cmd, f)
	cli.AddJQFlag(cmd, f)
	return cmd
}

// runYAMLTopic is the help topic `runx help run-yaml`: the reference of
// every key of run.yaml, tests/*.yaml and connector.yaml, from the same
// table the decoder's enforce-or-refuse test reads (docs/run-yaml.md).
func runYAMLTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "run-yaml",
		Short: "Every key of run.yaml, tests/*.yaml and connector.yaml, and what enforces it",
		Long:  string(keyref.Markdown()),
	}
}

// authorityTopic is the help topic `runx help authority`: every field of
// the authority document, from the table its parser's test reads
// (docs/authority.md).
func authorityTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "authority-document",
		Short: "Every field of the authority document (--run-authority, presets), and what enforces it",
		Long:  string(fieldref.Markdown()),
	}
}

// refuseUnknownSubcommands makes every command that only groups others
// refuse an argument naming none of them as a usage error (exit 2). cobra
// does so for the root alone; below it, `runx tool nosuch` printed the
// group's help and exited 0, as if it had done something.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
		if !sub.HasSubCommands() || sub.Runnable() {
			continue
		}
		sub.Args = cobra.ArbitraryArgs
		sub.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("unknown command %q for %q; run %s --help for its commands", args[0], cmd.CommandPath(), cmd.CommandPath())
			}
			return cmd.Help()
		}
	}
}

// Main runs runx with args and returns its exit code. SIGTERM asks the run to
// stop admitting steps (143); SIGINT or a second SIGTERM interrupts (130).
func Main(args []string, io *cli.IO, firstParty map[string]func() sdk.Info, localStore datasource.LocalStore, core fs.FS) cli.ExitCode {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// Every byte this invocation prints passes its taint set: a value it
	// delivered to a plugin or a provider is printed as the marker.
	taint := &credential.Taint{}
	out := &guardedOut{w: taint.Writer(io.Out)}
	var driving atomic.Value   // the run this invocation drives, once it does
	var stoppedBy atomic.Value // the signal stopping this invocation, once one is
	stopping := func() (*contract.ErrorBody, cli.ExitCode, bool) {
		sig, ok := stoppedBy.Load().(stopSignal)
		if !ok {
			return nil, 0, false
		}
		runID, _ := driving.Load().(string)
		return interruptedError(sig.sig, runID), sig.exit, true
	}
	io = &cli.IO{In: io.In, Out: out, Err: taint.Writer(io.Err), OutTerminal: io.OutTerminal, ErrTerminal: io.ErrTerminal, ErrWidth: io.ErrWidth, Stopping: stopping}
	f := &cli.Factory{IO: io, FirstParty: firstParty, LocalStore: localStore, CoreSkills: core, Taint: taint, NewFetcher: registryfetch.New}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	// The death of the driver's parent interrupts it as SIGINT would.
	interruptOnParentDeath()
	ctx = run.WithDriving(ctx, func(id string) { driving.Store(id) })
	go func() {
		terms, interrupted := 0, false
		for sig := range signals {
			if sig == syscall.SIGTERM && terms == 0 && !interrupted {
				terms++
				// Known before the cancel, so any failure the cancel
				// causes is reported as the stop.
				stoppedBy.Store(stopSignal{sig, cli.ExitTerminated})
				cancel(cli.ErrTerminated)
				continue
			}
			if interrupted {
				// A second interrupt exits at once: the run's record is
				// only ever a whole transition, so it stays resumable.
				os.Exit(int(cli.ExitInterrupted))
			}
			interrupted = true
			stoppedBy.Store(stopSignal{sig, cli.ExitInterrupted})
			go func() {
				cancel(cli.ErrInterrupted)
				f.Interrupt(interruptWindow)
				runID, _ := driving.Load().(string)
				asJSON := wantsJSON(args)
				out.last(func(w stdio.Writer) {
					// The run stays where it was interrupted, for its next driver.
					body := interruptedError(sig, runID)
					if asJSON {
						_ = cli.PrintJSON(w, cli.NewErrorDocument(body))
						return
					}
					fmt.Fprintf(io.Err, "runx: %s [%s]\n", body.Message, body.Code)
				})
				os.Exit(int(cli.ExitInterrupted))
			}()
		}
	}()
	cmd := New(f)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if jqErr := cli.JQFailure(io.Out); jqErr != nil && err == nil {
		// The command did its work; the --jq expression over its
		// document failed.
		return cli.ReportError(io, true, jqErr)
	}
	var exit *cli.ExitError
	switch {
	case err == nil:
		return cli.ExitOK
	case errors.As(err, &exit):
		return exit.Code
	}
	var ue *cli.UsageError
	if !errors.As(err, &ue) {
		// cobra's own argument errors (unknown command, wrong arity) are usage errors.
		err = cli.Usagef("%v", err)
	}
	return cli.ReportError(io, wantsJSON(args), err)
}

// wantsJSON reports whether the command line asked for JSON, so even a usage
// error cobra raises before any command runs comes back as one document.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "-j" || a == "--json=true" || a == "--jq" || strings.HasPrefix(a, "--jq=") {
			return true
		}
	}
	return false
}

// stopSignal is the signal stopping an invocation and the exit code it
// stops with.
type stopSignal struct {
	sig  os.Signal
	exit cli.ExitCode
}

// interruptedError is what an interrupted command prints: the run it leaves
// (when it drove one) and the command that continues it.
func interruptedError(sig os.Signal, runID string) *contract.ErrorBody {
	if runID == "" {
		// No run was driven yet (the kernel names a run once its record
		// exists and before any of its steps runs): nothing of a run was
		// left in flight, and no run of this command can be resumed.
		return &contract.ErrorBody{Code: errcode.Interrupted, Message: fmt.Sprintf("runx was interrupted (%s) and stopped before it drove any run, so no step of a run ran; run the command again to do it", sig)}
	}
	resume := "runx resume " + runID
	return &contract.ErrorBody{
		Code:    errcode.Interrupted,
		Message: fmt.Sprintf("runx was interrupted (%s) and stopped; run %s stays where it was, and `%s` continues it", sig, runID, resume),
		Detail:  map[string]any{"run_id": runID, "resume": resume},
	}
}
