package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// The argument-count checks of runx's commands are cobra's, with a wrong
// count a typed usage error (exit 2) at its source, not left for the root
// to classify.

// NoArgs accepts no argument.
func NoArgs(cmd *cobra.Command, args []string) error { return usageArgs(cobra.NoArgs)(cmd, args) }

// ExactArgs accepts exactly n arguments.
func ExactArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.ExactArgs(n)) }

// RangeArgs accepts min to max arguments.
func RangeArgs(min, max int) cobra.PositionalArgs { return usageArgs(cobra.RangeArgs(min, max)) }

// MaximumNArgs accepts at most n arguments.
func MaximumNArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.MaximumNArgs(n)) }

func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			var ue *UsageError
			if errors.As(err, &ue) {
				return err
			}
			return &UsageError{Msg: err.Error()}
		}
		return nil
	}
}

// FlagError makes a flag cobra cannot parse (unknown, malformed, missing
// its value) a usage error; the root sets it, and every command below
// inherits it.
func FlagError(_ *cobra.Command, err error) error { return Usagef("%v", err) }
