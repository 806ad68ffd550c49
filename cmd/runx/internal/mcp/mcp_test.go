package mcp

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx mcp serves skill references or, with --run, one run's turns; it
// takes authority only from a preset, and --max-spend only for the runs
// the session starts.
func TestMCPFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"mcp", "./a"}, Want: func(o *Options) { o.Refs = []string{"./a"} }},
		{Args: []string{"mcp", "./a", "./b#m"}, Want: func(o *Options) { o.Refs = []string{"./a", "./b#m"} }},
		{Args: []string{"mcp", "--run", "run_x"}, Want: func(o *Options) { o.RunID, o.Refs = "run_x", []string{} }},
		{Args: []string{"mcp", "./a", "--authority", "ci"}, Want: func(o *Options) { o.Refs, o.Preset = []string{"./a"}, "ci" }},
		{Args: []string{"mcp", "./a", "--max-spend", "1"}, Want: func(o *Options) { o.Refs = []string{"./a"}; _ = o.MaxSpend.Set("1") }},
		{Args: []string{"mcp", "--run", "run_x", "--authority", "ci"}, Want: func(o *Options) { o.RunID, o.Refs, o.Preset = "run_x", []string{}, "ci" }},
		// refusals
		{Args: []string{"mcp"}},
		{Args: []string{"mcp", "--run", "run_x", "./a"}},
		{Args: []string{"mcp", "--run", "run_x", "--max-spend", "1"}},
		{Args: []string{"mcp", "--run-authority", `{"effects":"allow"}`, "./a"}},
		{Args: []string{"mcp", "./a", "--json"}},
		{Args: []string{"mcp", "--run"}},
	})
}
