package authoritycmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// Each verb of runx authority parses its arguments and flags into Options,
// and a wrong command line is a usage error before anything runs.
func TestAuthorityFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"authority", "save", "ci", "a.json"}, Want: func(o *Options) { o.Verb, o.Name, o.File = VerbSave, "ci", "a.json" }},
		{Args: []string{"authority", "save", "ci", "a.json", "--workspace", "w1", "--workspace", "w2", "-j"}, Want: func(o *Options) {
			o.Verb, o.Name, o.File, o.Workspaces, o.JSON = VerbSave, "ci", "a.json", []string{"w1", "w2"}, true
		}},
		{Args: []string{"authority", "list"}, Want: func(o *Options) { o.Verb = VerbList }},
		{Args: []string{"authority", "list", "--json"}, Want: func(o *Options) { o.Verb, o.JSON = VerbList, true }},
		{Args: []string{"authority", "show", "ci"}, Want: func(o *Options) { o.Verb, o.Name = VerbShow, "ci" }},
		{Args: []string{"authority", "remove", "ci", "-j"}, Want: func(o *Options) { o.Verb, o.Name, o.JSON = VerbRemove, "ci", true }},
		// refusals
		{Args: []string{"authority", "save", "ci"}},
		{Args: []string{"authority", "save", "ci", "a.json", "b.json"}},
		{Args: []string{"authority", "save", "ci", "a.json", "--workspace"}},
		{Args: []string{"authority", "list", "ci"}},
		{Args: []string{"authority", "list", "--workspace", "w1"}},
		{Args: []string{"authority", "show"}},
		{Args: []string{"authority", "show", "ci", "cd"}},
		{Args: []string{"authority", "remove"}},
		{Args: []string{"authority", "remove", "ci", "--nosuch"}},
	})
}
