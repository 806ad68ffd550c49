package version

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx version takes no argument, only --json.
func TestVersionFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"version"}, Want: func(o *Options) {}},
		{Args: []string{"version", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"version", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"version", "extra"}},
		{Args: []string{"version", "--nosuch"}},
	})
}
