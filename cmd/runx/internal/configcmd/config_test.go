package configcmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// Each verb of runx config parses its key (and set's value) into Options;
// --json is the group's, before or after the verb.
func TestConfigFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"config", "set", "agent.model", "m1"}, Want: func(o *Options) { o.Verb, o.Key, o.Value = VerbSet, "agent.model", "m1" }},
		{Args: []string{"config", "get", "agent.model"}, Want: func(o *Options) { o.Verb, o.Key = VerbGet, "agent.model" }},
		{Args: []string{"config", "get", "agent.model", "--json"}, Want: func(o *Options) { o.Verb, o.Key, o.JSON = VerbGet, "agent.model", true }},
		{Args: []string{"config", "--json", "list"}, Want: func(o *Options) { o.Verb, o.JSON = VerbList, true }},
		{Args: []string{"config", "list", "-j"}, Want: func(o *Options) { o.Verb, o.JSON = VerbList, true }},
		{Args: []string{"config", "unset", "agent.model"}, Want: func(o *Options) { o.Verb, o.Key = VerbUnset, "agent.model" }},
		// refusals
		{Args: []string{"config", "set", "agent.model"}},
		{Args: []string{"config", "set", "agent.model", "m1", "m2"}},
		{Args: []string{"config", "get"}},
		{Args: []string{"config", "get", "a", "b"}},
		{Args: []string{"config", "list", "agent.model"}},
		{Args: []string{"config", "unset"}},
		{Args: []string{"config", "unset", "agent.model", "--nosuch"}},
	})
}
