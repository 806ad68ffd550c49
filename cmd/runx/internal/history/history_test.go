package history

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx history takes at most one run id, --after, --payload and --json.
func TestHistoryFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f, Limit: -1} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"history"}, Want: func(o *Options) {}},
		{Args: []string{"history", "run_x"}, Want: func(o *Options) { o.RunID = "run_x" }},
		{Args: []string{"history", "run_x", "--after", "c1"}, Want: func(o *Options) { o.RunID, o.After = "run_x", "c1" }},
		{Args: []string{"history", "run_x", "--payload", "plan/0"}, Want: func(o *Options) { o.RunID, o.Payload = "run_x", "plan/0" }},
		{Args: []string{"history", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"history", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"history", "--skill", "s", "--status", "paused", "--since", "7d", "--limit", "5", "--tests"}, Want: func(o *Options) {
			o.Skill, o.Status, o.Since, o.Limit, o.Tests = "s", "paused", "7d", 5, true
		}},
		{Args: []string{"history", "--since", "90m", "--status", "completed", "--limit", "0"}, Want: func(o *Options) { o.Since, o.Status, o.Limit = "90m", "completed", 0 }},
		{Args: []string{"history", "--since", "2026-12-01"}, Want: func(o *Options) { o.Since = "2026-12-01" }},
		{Args: []string{"history", "--since", "2026-12-01T10:00:00Z"}, Want: func(o *Options) { o.Since = "2026-12-01T10:00:00Z" }},
		// refusals
		{Args: []string{"history", "--status", "done"}},
		{Args: []string{"history", "--status", "skipped"}},
		{Args: []string{"history", "--since", "yesterday"}},
		{Args: []string{"history", "--since", "-5h"}},
		{Args: []string{"history", "--limit", "-1"}},
		{Args: []string{"history", "--limit", "x"}},
		{Args: []string{"history", "run_x", "--skill", "s"}},
		{Args: []string{"history", "run_x", "--limit", "3"}},
		{Args: []string{"history", "run_x", "--tests"}},
		{Args: []string{"history", "run_x", "run_y"}},
		{Args: []string{"history", "--nosuch"}},
		{Args: []string{"history", "run_x", "--after"}},
	})
}
