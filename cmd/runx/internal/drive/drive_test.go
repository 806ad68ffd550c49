package drive

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/kernel/agent"
	"github.com/spf13/cobra"
)

// --drive and its budget flags parse into Flags; a budget flag without
// --drive, or a budget that bounds nothing, is a usage error before the run
// starts.
func TestDriveFlags(t *testing.T) {
	newCmd := func(runF func(*Flags) error) *cobra.Command {
		fl := &Flags{}
		cmd := &cobra.Command{Use: "x", RunE: func(c *cobra.Command, _ []string) error {
			if err := fl.Check(c); err != nil {
				return err
			}
			return runF(fl)
		}}
		fl.Register(cmd)
		return cmd
	}
	defaults := func() *Flags {
		return &Flags{RoundsPerTurn: agent.DefaultRoundsPerTurn, RoundsPerRun: agent.DefaultRoundsPerRun}
	}
	clitest.Table(t, newCmd, defaults, []clitest.Case[Flags]{
		{Args: []string{"x"}, Want: func(f *Flags) {}},
		{Args: []string{"x", "--drive"}, Want: func(f *Flags) { f.Drive = true }},
		{Args: []string{"x", "--drive", "--max-rounds", "1"}, Want: func(f *Flags) { f.Drive, f.RoundsPerTurn = true, 1 }},
		{Args: []string{"x", "--drive", "--max-run-rounds", "1"}, Want: func(f *Flags) { f.Drive, f.RoundsPerRun = true, 1 }},
		{Args: []string{"x", "--drive", "--max-turn-tokens", "0"}, Want: func(f *Flags) { f.Drive = true }},
		{Args: []string{"x", "--drive", "--max-run-tokens", "7"}, Want: func(f *Flags) { f.Drive, f.TokensPerRun = true, 7 }},
		// refusals
		{Args: []string{"x", "--max-rounds", "2"}},
		{Args: []string{"x", "--max-run-rounds", "2"}},
		{Args: []string{"x", "--max-turn-tokens", "2"}},
		{Args: []string{"x", "--max-run-tokens", "2"}},
		{Args: []string{"x", "--drive", "--max-rounds", "0"}},
		{Args: []string{"x", "--drive", "--max-run-rounds", "-1"}},
		{Args: []string{"x", "--drive", "--max-turn-tokens", "-1"}},
		{Args: []string{"x", "--drive", "--max-run-tokens", "-1"}},
		{Args: []string{"x", "--drive=sure"}},
	})
}
