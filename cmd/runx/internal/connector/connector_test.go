package connector

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx connector use parses a connector and its flags into UseOptions, and
// refuses, before anything runs, flags that do not go with the connector
// named: the store takes --parameter url=… (and profile=…), a connector a
// credential's source.
func TestUseFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *UseOptions { return &UseOptions{Connector: "postbox"} }
	clitest.Table(t, func(runF func(*UseOptions) error) *cobra.Command { return NewUse(f, runF) }, defaults, []clitest.Case[UseOptions]{
		{Args: []string{"use", "postbox"}, Want: func(o *UseOptions) {}},
		{Args: []string{"use", "postbox", "--env", "POSTBOX_TOKEN"}, Want: func(o *UseOptions) { o.Env = "POSTBOX_TOKEN" }},
		{Args: []string{"use", "postbox", "--secret", "postbox"}, Want: func(o *UseOptions) { o.Secret = "postbox" }},
		{Args: []string{"use", "postbox", "--package", "./pkg"}, Want: func(o *UseOptions) { o.Package = "./pkg" }},
		{Args: []string{"use", "postbox", "-j"}, Want: func(o *UseOptions) { o.JSON = true }},
		{Args: []string{"use", "store", "--parameter", "url=data.sqlite"}, Want: func(o *UseOptions) {
			o.Connector, o.Params = "store", []string{"url=data.sqlite"}
		}},
		{Args: []string{"use", "store", "--parameter", "url=redis://h", "--parameter", "profile=p", "--json"}, Want: func(o *UseOptions) {
			o.Connector, o.Params, o.JSON = "store", []string{"url=redis://h", "profile=p"}, true
		}},
		// refusals
		{Args: []string{"use"}},
		{Args: []string{"use", "postbox", "store"}},
		{Args: []string{"use", "postbox", "--env"}},
		{Args: []string{"use", "postbox", "--nosuch"}},
		{Args: []string{"use", "postbox", "--parameter", "url=x"}},
		{Args: []string{"use", "store"}},
		{Args: []string{"use", "store", "--parameter", "profile=p"}},
		{Args: []string{"use", "store", "--parameter", "url"}},
		{Args: []string{"use", "store", "--parameter", "host=x"}},
		{Args: []string{"use", "store", "--parameter", "url=x", "--env", "X"}},
		{Args: []string{"use", "store", "--parameter", "url=x", "--secret", "x"}},
		{Args: []string{"use", "store", "--parameter", "url=x", "--package", "."}},
	})
}

// runx secret set takes exactly one name, and --json; the value comes only
// from standard input.
func TestSecretSetFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *SecretOptions { return &SecretOptions{Factory: f, Name: "postbox"} }
	clitest.Table(t, func(runF func(*SecretOptions) error) *cobra.Command { return NewSecretSet(f, runF) }, defaults, []clitest.Case[SecretOptions]{
		{Args: []string{"set", "postbox"}, Want: func(o *SecretOptions) {}},
		{Args: []string{"set", "postbox", "--json"}, Want: func(o *SecretOptions) { o.JSON = true }},
		{Args: []string{"set"}},
		{Args: []string{"set", "postbox", "tok-123"}},
		{Args: []string{"set", "postbox", "--value", "tok-123"}},
	})
}
