package history

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx history takes at most one run id, --after, --payload and --json.
func TestHistoryFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"history"}, Want: func(o *Options) {}},
		{Args: []string{"history", "run_x"}, Want: func(o *Options) { o.RunID = "run_x" }},
		{Args: []string{"history", "run_x", "--after", "c1"}, Want: func(o *Options) { o.RunID, o.After = "run_x", "c1" }},
		{Args: []string{"history", "run_x", "--payload", "plan/0"}, Want: func(o *Options) { o.RunID, o.Payload = "run_x", "plan/0" }},
		{Args: []string{"history", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"history", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"history", "run_x", "run_y"}},
		{Args: []string{"history", "--nosuch"}},
		{Args: []string{"history", "run_x", "--after"}},
	})
}
