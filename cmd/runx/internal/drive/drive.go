// Package drive is the --drive consent of runx skill and runx resume: with
// it, and only for that run, the configured managed agent works the run's
// agent turns (kernel/agent). Without it a run pauses at needs_agent as it
// always has; configured credentials never imply consent.
package drive

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/agent"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// Flags are a command's managed-agent flags.
type Flags struct {
	Drive         bool
	RoundsPerTurn int
	RoundsPerRun  int
	TokensPerTurn int64
	TokensPerRun  int64
}

// Register adds --drive and its budget flags to a command.
func (f *Flags) Register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.Drive, "drive", false, "let the configured managed agent work this run's agent turns (consent for this run only)")
	cmd.Flags().IntVar(&f.RoundsPerTurn, "max-rounds", agent.DefaultRoundsPerTurn, "with --drive: the most model rounds one turn may take")
	cmd.Flags().IntVar(&f.RoundsPerRun, "max-run-rounds", agent.DefaultRoundsPerRun, "with --drive: the most model rounds this drive may take in all")
	cmd.Flags().Int64Var(&f.TokensPerTurn, "max-turn-tokens", 0, "with --drive: the most tokens one turn may take (0: no token bound)")
	cmd.Flags().Int64Var(&f.TokensPerRun, "max-run-tokens", 0, "with --drive: the most tokens this drive may take in all (0: no token bound)")
}

// Check refuses budget flags without --drive and budgets that bound
// nothing; it is called before the run starts.
func (f *Flags) Check(cmd *cobra.Command) error {
	if !f.Drive {
		for _, n := range []string{"max-rounds", "max-run-rounds", "max-turn-tokens", "max-run-tokens"} {
			if cmd.Flags().Changed(n) {
				return cli.Usagef("--%s bounds a managed agent: it needs --drive", n)
			}
		}
		return nil
	}
	if f.RoundsPerTurn < 1 || f.RoundsPerRun < 1 {
		return cli.Usagef("--max-rounds and --max-run-rounds are at least 1")
	}
	if f.TokensPerTurn < 0 || f.TokensPerRun < 0 {
		return cli.Usagef("--max-turn-tokens and --max-run-tokens are 0 (no bound) or more")
	}
	return nil
}

// Prepare resolves the provider before anything runs, so a managed run
// without agent.model (or a key a built-in provider needs) is refused
// before it starts. It returns nil without --drive.
func (f *Flags) Prepare(k *run.Kernel) (*agent.Driver, error) {
	if !f.Drive {
		return nil, nil
	}
	c, err := agent.LoadConfig(k.Options.HomeDir)
	if err != nil {
		return nil, err
	}
	p, err := agent.Resolve(c, k.Options.HomeDir, k.Options.LookupEnv)
	if err != nil {
		return nil, err
	}
	return agent.NewDriver(k, p, contract.AgentBudget{RoundsPerTurn: f.RoundsPerTurn, RoundsPerRun: f.RoundsPerRun,
		TokensPerTurn: f.TokensPerTurn, TokensPerRun: f.TokensPerRun})
}

// Work drives a run the command started or resumed, says on stderr who
// works it under which budget, and shows its progress there (cli.Progress).
func Work(ctx context.Context, io *cli.IO, asJSON bool, d *agent.Driver, env *contract.SkillRun) (*contract.SkillRun, error) {
	if d == nil || env.Status == contract.StatusSealed {
		return env, nil
	}
	b := d.Budget
	fmt.Fprintf(io.Err, "runx: managed agent %s (%s) drives run %s: at most %d rounds a turn, %d in all\n",
		d.Provider.Name, d.Provider.Model, env.RunID, b.RoundsPerTurn, b.RoundsPerRun)
	ctx, stop := io.Progress(ctx, asJSON)
	defer stop()
	return d.Drive(ctx, env)
}
