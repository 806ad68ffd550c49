package notarycmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/kernel/notary/server"
	"github.com/spf13/cobra"
)

func inGroup(c *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: "notary"}
	cmd.AddCommand(c)
	return cmd
}

// runx notarize takes one receipt file; the API flags; --out and --json.
func TestNotarizeFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*NotarizeOptions) error) *cobra.Command { return NewNotarize(f, runF) },
		func() *NotarizeOptions { return &NotarizeOptions{Factory: f, Receipt: "r.json"} }, []clitest.Case[NotarizeOptions]{
			{Args: []string{"notarize", "r.json"}, Want: func(o *NotarizeOptions) {}},
			{Args: []string{"notarize", "r.json", "--api-base-url", "http://127.0.0.1:1", "--allow-local-api", "--out", "rec.json", "-j"}, Want: func(o *NotarizeOptions) {
				o.API = APIFlags{BaseURL: "http://127.0.0.1:1", AllowLocalAPI: true}
				o.Out, o.JSON = "rec.json", true
			}},
			{Args: []string{"notarize"}},
			{Args: []string{"notarize", "a", "b"}},
			{Args: []string{"notarize", "a", "--token", "x"}},
		})
}

// The server-side verbs take exactly one store; serve binds off loopback
// only with --url.
func TestServeFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *ServeOptions {
		return &ServeOptions{Factory: f, PerMinute: server.DefaultPerMinute, Burst: server.DefaultBurst}
	}
	clitest.Table(t, func(runF func(*ServeOptions) error) *cobra.Command { return inGroup(NewServe(f, runF)) }, defaults, []clitest.Case[ServeOptions]{
		{Args: []string{"notary", "serve", "--addr", "127.0.0.1:0", "--data", "d"}, Want: func(o *ServeOptions) { o.Addr, o.Store.Data = "127.0.0.1:0", "d" }},
		{Args: []string{"notary", "serve", "--addr", ":8080", "--database", "postgres://h/db", "--url", "https://notary.example", "--rate", "5", "--burst", "2", "--json"}, Want: func(o *ServeOptions) {
			o.Addr, o.Store.Database, o.URL, o.PerMinute, o.Burst, o.JSON = ":8080", "postgres://h/db", "https://notary.example", 5, 2, true
		}},
		{Args: []string{"notary", "serve", "--addr", ":8080", "--data", "d"}},
		{Args: []string{"notary", "serve", "--addr", "8080", "--data", "d"}},
		{Args: []string{"notary", "serve", "--data", "d"}},
		{Args: []string{"notary", "serve", "--addr", ":0"}},
		{Args: []string{"notary", "serve", "--addr", "127.0.0.1:0", "--data", "d", "--database", "postgres://h/db"}},
		{Args: []string{"notary", "serve", "--addr", "127.0.0.1:0", "--data", "d", "--rate", "0"}},
	})
}

func TestTokenAndKeyFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*TokenOptions) error) *cobra.Command { return inGroup(NewToken(f, runF)) },
		func() *TokenOptions { return &TokenOptions{Factory: f} }, []clitest.Case[TokenOptions]{
			{Args: []string{"notary", "token", "create", "--data", "d", "--name", "ci"}, Want: func(o *TokenOptions) { o.Store.Data, o.Name = "d", "ci" }},
			{Args: []string{"notary", "token", "create", "--data", "d"}},
			{Args: []string{"notary", "token", "create", "--name", "ci"}},
		})
	clitest.Table(t, func(runF func(*KeyOptions) error) *cobra.Command { return inGroup(NewKey(f, runF)) },
		func() *KeyOptions { return &KeyOptions{Factory: f} }, []clitest.Case[KeyOptions]{
			{Args: []string{"notary", "key", "--data", "d"}, Want: func(o *KeyOptions) { o.Store.Data = "d" }},
			{Args: []string{"notary", "key"}},
		})
}
