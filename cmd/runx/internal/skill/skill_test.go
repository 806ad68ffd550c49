package skill

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/cmd/runx/internal/drive"
	"github.com/runxhq/runx/kernel/agent"
	"github.com/spf13/cobra"
)

// runx skill parses its arguments and flags into Options, and refuses a
// wrong command line as a usage error before anything runs.
func TestSkillFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options {
		return &Options{Factory: f, Ref: "./pkg", Drive: drive.Flags{RoundsPerTurn: agent.DefaultRoundsPerTurn, RoundsPerRun: agent.DefaultRoundsPerRun}}
	}
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"skill", "./pkg"}, Want: func(o *Options) {}},
		{Args: []string{"skill", "./pkg#review"}, Want: func(o *Options) { o.Ref = "./pkg#review" }},
		{Args: []string{"skill", "./pkg", "review"}, Want: func(o *Options) { o.Method = "review" }},
		{Args: []string{"skill", "./pkg", "-i", "a=1", "--input", "b=two"}, Want: func(o *Options) { o.Pairs = []string{"a=1", "b=two"} }},
		{Args: []string{"skill", "./pkg", "--input-json", "n=[1]"}, Want: func(o *Options) { o.JSONPairs = []string{"n=[1]"} }},
		{Args: []string{"skill", "./pkg", "--inputs", "-"}, Want: func(o *Options) { o.InputsFile = "-" }},
		{Args: []string{"skill", "./pkg", "--act", "ship"}, Want: func(o *Options) { o.Act = "ship" }},
		{Args: []string{"skill", "./pkg", "--run-authority", `{"effects":"allow"}`}, Want: func(o *Options) { o.Authority = `{"effects":"allow"}` }},
		{Args: []string{"skill", "./pkg", "--authority", "ci"}, Want: func(o *Options) { o.Preset = "ci" }},
		{Args: []string{"skill", "./pkg", "--package-digest", "sha256:a", "--closure-digest", "sha256:b"}, Want: func(o *Options) { o.PackageDigest, o.ClosureDigest = "sha256:a", "sha256:b" }},
		{Args: []string{"skill", "./pkg", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"skill", "./pkg", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"skill", "./pkg", "--max-spend", "2.50"}, Want: func(o *Options) { _ = o.MaxSpend.Set("2.50") }},
		{Args: []string{"skill", "./pkg", "--drive"}, Want: func(o *Options) { o.Drive.Drive = true }},
		{Args: []string{"skill", "./pkg", "--drive", "--max-rounds", "3", "--max-run-rounds", "9", "--max-turn-tokens", "100", "--max-run-tokens", "1000"}, Want: func(o *Options) {
			o.Drive = drive.Flags{Drive: true, RoundsPerTurn: 3, RoundsPerRun: 9, TokensPerTurn: 100, TokensPerRun: 1000}
		}},
		// refusals
		{Args: []string{"skill"}},
		{Args: []string{"skill", "./pkg", "review", "extra"}},
		{Args: []string{"skill", "./pkg", "--nosuch"}},
		{Args: []string{"skill", "./pkg", "--json=maybe"}},
		{Args: []string{"skill", "./pkg", "--act"}},
		{Args: []string{"skill", "./pkg", "--run-authority", "{}", "--authority", "ci"}},
		{Args: []string{"skill", "./pkg", "--inputs", "-", "-i", "a=1"}},
		{Args: []string{"skill", "./pkg", "--inputs", "-", "--input-json", "a=1"}},
		{Args: []string{"skill", "./pkg", "--max-rounds", "3"}},
		{Args: []string{"skill", "./pkg", "--max-run-rounds", "3"}},
		{Args: []string{"skill", "./pkg", "--max-turn-tokens", "3"}},
		{Args: []string{"skill", "./pkg", "--max-run-tokens", "3"}},
		{Args: []string{"skill", "./pkg", "--drive", "--max-rounds", "0"}},
		{Args: []string{"skill", "./pkg", "--drive", "--max-run-rounds", "0"}},
		{Args: []string{"skill", "./pkg", "--drive", "--max-turn-tokens", "-1"}},
		{Args: []string{"skill", "./pkg", "--drive", "--max-run-tokens", "-1"}},
		{Args: []string{"skill", "./pkg", "--drive", "--max-rounds", "many"}},
	})
}

// runx skill inspect takes a reference, a method, an authority or preset
// and an inputs document, and refuses both authorities at once.
func TestInspectFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f, Ref: "./pkg"} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return NewInspect(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"inspect", "./pkg"}, Want: func(o *Options) {}},
		{Args: []string{"inspect", "./pkg", "review"}, Want: func(o *Options) { o.Method = "review" }},
		{Args: []string{"inspect", "./pkg", "--run-authority", "{}"}, Want: func(o *Options) { o.Authority = "{}" }},
		{Args: []string{"inspect", "./pkg", "--authority", "ci"}, Want: func(o *Options) { o.Preset = "ci" }},
		{Args: []string{"inspect", "./pkg", "--inputs", "in.json"}, Want: func(o *Options) { o.InputsFile = "in.json" }},
		{Args: []string{"inspect", "./pkg", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"inspect"}},
		{Args: []string{"inspect", "./pkg", "review", "extra"}},
		{Args: []string{"inspect", "./pkg", "-i", "a=1", "--input-json", "n=[1]"}, Want: func(o *Options) { o.Pairs, o.JSONPairs = []string{"a=1"}, []string{"n=[1]"} }},
		{Args: []string{"inspect", "./pkg", "--inputs", "-", "-i", "a=1"}},
		{Args: []string{"inspect", "./pkg", "--run-authority", "{}", "--authority", "ci"}},
	})
}
