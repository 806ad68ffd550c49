// Package clitest runs one runx command's flag parsing as the root runs it,
// for the tests beside each command: with the command's runF seam injected,
// nothing runs, and the test asserts the options the command line parsed
// to, or the usage error it was refused with.
//
// It is test support only: nothing outside _test.go files may import it.
package clitest

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// Factory is a factory over in-memory streams (stdin reads stdin); it opens
// no kernel unless a command runs.
func Factory(stdin string) *cli.Factory {
	return &cli.Factory{IO: &cli.IO{In: strings.NewReader(stdin), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}}
}

// Exec parses args (the words after `runx`) into cmd, a top-level command,
// under a root configured as runx's (flag errors are usage errors, nothing
// is printed by cobra) and runs what they name. It returns what the
// command's RunE returned.
func Exec(cmd *cobra.Command, args ...string) error {
	root := &cobra.Command{Use: "runx", SilenceUsage: true, SilenceErrors: true}
	root.SetFlagErrorFunc(cli.FlagError)
	var discard bytes.Buffer
	root.SetOut(&discard)
	root.SetErr(&discard)
	root.AddCommand(cmd)
	root.SetArgs(args)
	return root.ExecuteContext(context.Background())
}

// IsUsage reports whether err is a usage error (exit 2, usage_error).
func IsUsage(err error) bool {
	var ue *cli.UsageError
	return errors.As(err, &ue) && ue.ErrorCode() == errcode.UsageError
}

// Case is one command line and what it parses to.
type Case[O any] struct {
	// Args are the words after `runx`.
	Args []string
	// Want edits the command's defaults into the options Args parse to;
	// nil says Args are refused with a usage error and nothing runs.
	Want func(o *O)
}

// Table runs each case through the command newCmd builds around its runF
// seam, and fails unless the command ran with exactly the options the case
// wants (defaults() edited by Want), or was refused with a usage error
// without running.
func Table[O any](t *testing.T, newCmd func(runF func(*O) error) *cobra.Command, defaults func() *O, cases []Case[O]) {
	t.Helper()
	for _, c := range cases {
		t.Run(strings.Join(c.Args, " "), func(t *testing.T) {
			var got *O
			err := Exec(newCmd(func(o *O) error { got = o; return nil }), c.Args...)
			if c.Want == nil {
				if !IsUsage(err) || got != nil {
					t.Fatalf("runx %s: error %v, ran %v; want a usage error and nothing run", strings.Join(c.Args, " "), err, got != nil)
				}
				return
			}
			if err != nil || got == nil {
				t.Fatalf("runx %s: error %v, ran %v; want it run", strings.Join(c.Args, " "), err, got != nil)
			}
			want := defaults()
			c.Want(want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("runx %s parsed to\n%+v\nwant\n%+v", strings.Join(c.Args, " "), *got, *want)
			}
		})
	}
}
