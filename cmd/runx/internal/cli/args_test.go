package cli_test

import (
	"errors"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// A wrong argument count is a typed usage error at its source (exit 2,
// usage_error), with cobra's own message; a right one runs.
func TestArgCountIsAUsageError(t *testing.T) {
	for _, c := range []struct {
		check cobra.PositionalArgs
		args  []string
		msg   string // "" runs
	}{
		{cli.NoArgs, nil, ""},
		{cli.NoArgs, []string{"a"}, `unknown command "a" for "runx x"`},
		{cli.ExactArgs(1), []string{"a"}, ""},
		{cli.ExactArgs(1), nil, "accepts 1 arg(s), received 0"},
		{cli.ExactArgs(1), []string{"a", "b"}, "accepts 1 arg(s), received 2"},
		{cli.RangeArgs(1, 2), []string{"a", "b"}, ""},
		{cli.RangeArgs(1, 2), nil, "accepts between 1 and 2 arg(s), received 0"},
		{cli.RangeArgs(1, 2), []string{"a", "b", "c"}, "accepts between 1 and 2 arg(s), received 3"},
		{cli.MaximumNArgs(1), nil, ""},
		{cli.MaximumNArgs(1), []string{"a", "b"}, "accepts at most 1 arg(s), received 2"},
	} {
		ran := false
		cmd := &cobra.Command{Use: "x", Args: c.check, RunE: func(*cobra.Command, []string) error { ran = true; return nil }}
		err := clitest.Exec(cmd, append([]string{"x"}, c.args...)...)
		if c.msg == "" {
			if err != nil || !ran {
				t.Errorf("%v: error %v, ran %v; want it run", c.args, err, ran)
			}
			continue
		}
		var ue *cli.UsageError
		if !errors.As(err, &ue) || ue.ErrorCode() != "usage_error" || ue.Msg != c.msg || ran {
			t.Errorf("%v: error %v, ran %v; want usage_error %q", c.args, err, ran, c.msg)
		}
	}
}

// A flag cobra cannot parse is a usage error, with pflag's message.
func TestFlagErrorIsAUsageError(t *testing.T) {
	var n int
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	cmd.Flags().IntVar(&n, "n", 0, "")
	for want, args := range map[string][]string{
		"unknown flag: --nosuch":      {"x", "--nosuch"},
		"flag needs an argument: --n": {"x", "--n"},
		`invalid argument "many" for "--n" flag: strconv.ParseInt: parsing "many": invalid syntax`: {"x", "--n", "many"},
	} {
		var ue *cli.UsageError
		if err := clitest.Exec(cmd, args...); !errors.As(err, &ue) || ue.Msg != want {
			t.Errorf("%v: %v, want usage_error %q", args, err, want)
		}
	}
}

// --max-spend keeps the amount as given; Limit is unstated without it, the
// amount in micro-USD with it, and refuses an amount it cannot hold exactly
// (spend_limit_invalid).
func TestMaxSpend(t *testing.T) {
	var unset cli.MaxSpend
	if l, err := unset.Limit(); err != nil || l != (authority.Limit{}) {
		t.Fatalf("unset: %v %v", l, err)
	}
	var m cli.MaxSpend
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	m.Register(cmd)
	if err := clitest.Exec(cmd, "x", "--max-spend", "2.50"); err != nil || m.String() != "2.50" {
		t.Fatalf("--max-spend 2.50: %v %q", err, m.String())
	}
	if l, err := m.Limit(); err != nil || l != authority.LimitOf(2_500_000) {
		t.Fatalf("2.50: %v %v", l, err)
	}
	for _, bad := range []string{"2.5000001", "-1", "lots"} {
		_ = m.Set(bad)
		if _, err := m.Limit(); contract.CodeOf(err) != errcode.SpendLimitInvalid {
			t.Errorf("%s: %v, want %s", bad, err, errcode.SpendLimitInvalid)
		}
	}
}
