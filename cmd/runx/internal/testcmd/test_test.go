package testcmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx test takes exactly one package or test file, and --json.
func TestTestFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f, Target: "./pkg"} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"test", "./pkg"}, Want: func(o *Options) {}},
		{Args: []string{"test", "./pkg/tests/one.yaml"}, Want: func(o *Options) { o.Target = "./pkg/tests/one.yaml" }},
		{Args: []string{"test", "./pkg", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"test", "./pkg", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"test"}},
		{Args: []string{"test", "a", "b"}},
		{Args: []string{"test", "./pkg", "--nosuch"}},
	})
}
