package cli

import (
	"github.com/runxhq/runx/kernel/authority"
	"github.com/spf13/cobra"
)

// MaxSpend is the --max-spend flag of the commands that start or continue a
// run: a dollar amount that narrows the run's max_spend_micro_usd.
type MaxSpend struct{ raw string }

// Register adds --max-spend to cmd.
func (m *MaxSpend) Register(cmd *cobra.Command) {
	cmd.Flags().Var(m, "max-spend", "the most the run may spend, in USD (e.g. 2.50); narrows the authority's max_spend_micro_usd")
}

// String is the amount as given. MaxSpend is the flag's value (a
// pflag.Value); Limit checks the amount when the command runs.
func (m *MaxSpend) String() string { return m.raw }

// Set keeps the amount as given.
func (m *MaxSpend) Set(raw string) error { m.raw = raw; return nil }

// Type names the flag's value in help.
func (m *MaxSpend) Type() string { return "string" }

// Limit is the stated limit in micro-USD, or an unstated one. An amount
// runx cannot hold exactly is refused (spend_limit_invalid), never rounded.
func (m *MaxSpend) Limit() (authority.Limit, error) {
	if m.raw == "" {
		return authority.Limit{}, nil
	}
	n, err := authority.ParseUSD(m.raw)
	if err != nil {
		return authority.Limit{}, err
	}
	return authority.LimitOf(n), nil
}
