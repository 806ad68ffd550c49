package registrycmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

func inGroup(c *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: "registry"}
	cmd.AddCommand(c)
	return cmd
}

// The server-side verbs take exactly one store: --data or --database.
func TestServeFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*ServeOptions) error) *cobra.Command { return inGroup(NewServe(f, runF)) },
		func() *ServeOptions { return &ServeOptions{Factory: f} }, []clitest.Case[ServeOptions]{
			{Args: []string{"registry", "serve", "--addr", "127.0.0.1:0", "--data", "d"}, Want: func(o *ServeOptions) { o.Addr, o.Store.Data = "127.0.0.1:0", "d" }},
			{Args: []string{"registry", "serve", "--addr", ":8080", "--database", "postgres://h/db", "--url", "https://reg.example", "--json"}, Want: func(o *ServeOptions) {
				o.Addr, o.Store.Database, o.URL, o.JSON = ":8080", "postgres://h/db", "https://reg.example", true
			}},
			{Args: []string{"registry", "serve", "--addr", "localhost:0", "--data", "d"}, Want: func(o *ServeOptions) { o.Addr, o.Store.Data = "localhost:0", "d" }},
			{Args: []string{"registry", "serve", "--addr", ":8080", "--data", "d"}},
			{Args: []string{"registry", "serve", "--addr", "0.0.0.0:8080", "--data", "d"}},
			{Args: []string{"registry", "serve", "--addr", "8080", "--data", "d"}},
			{Args: []string{"registry", "serve", "--data", "d"}},
			{Args: []string{"registry", "serve", "--addr", ":0"}},
			{Args: []string{"registry", "serve", "--addr", ":0", "--data", "d", "--database", "postgres://h/db"}},
			{Args: []string{"registry", "serve", "--addr", ":0", "--data", "d", "extra"}},
		})
}

func TestKeyFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*KeyOptions) error) *cobra.Command { return inGroup(NewKey(f, runF)) },
		func() *KeyOptions { return &KeyOptions{Factory: f} }, []clitest.Case[KeyOptions]{
			{Args: []string{"registry", "key", "--data", "d"}, Want: func(o *KeyOptions) { o.Store.Data = "d" }},
			{Args: []string{"registry", "key", "--database", "postgres://h/db", "-j"}, Want: func(o *KeyOptions) { o.Store.Database, o.JSON = "postgres://h/db", true }},
			{Args: []string{"registry", "key"}},
		})
}

func TestTokenFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*TokenOptions) error) *cobra.Command { return inGroup(NewToken(f, runF)) },
		func() *TokenOptions { return &TokenOptions{Factory: f} }, []clitest.Case[TokenOptions]{
			{Args: []string{"registry", "token", "create", "--data", "d", "--namespace", "acme"}, Want: func(o *TokenOptions) { o.Store.Data, o.Namespace = "d", "acme" }},
			{Args: []string{"registry", "token", "create", "--data", "d"}},
			{Args: []string{"registry", "token", "create", "--namespace", "acme"}},
			{Args: []string{"registry", "token", "create", "--namespace", "acme", "--data", "d", "--token", "x"}},
			{Args: []string{"registry", "token", "create", "--namespace", "acme", "--data", "d", "extra"}},
			{Args: []string{"registry", "token", "list", "--data", "d"}, Want: func(o *TokenOptions) { o.Store.Data = "d" }},
			{Args: []string{"registry", "token", "list", "--database", "postgres://h/db", "--namespace", "acme", "-j"}, Want: func(o *TokenOptions) {
				o.Store.Database, o.Namespace, o.JSON = "postgres://h/db", "acme", true
			}},
			{Args: []string{"registry", "token", "list"}},
			{Args: []string{"registry", "token", "revoke", "0123456789abcdef", "--data", "d"}, Want: func(o *TokenOptions) { o.Store.Data, o.ID = "d", "0123456789abcdef" }},
			{Args: []string{"registry", "token", "revoke", "--data", "d"}},
			{Args: []string{"registry", "token", "revoke", "a", "b", "--data", "d"}},
			{Args: []string{"registry", "token", "revoke", "0123456789abcdef"}},
		})
}

func TestNamespaceFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*NamespaceOptions) error) *cobra.Command { return inGroup(NewNamespace(f, runF)) },
		func() *NamespaceOptions { return &NamespaceOptions{Factory: f} }, []clitest.Case[NamespaceOptions]{
			{Args: []string{"registry", "namespace", "--data", "d", "--namespace", "acme", "--tier", "verified"}, Want: func(o *NamespaceOptions) {
				o.Store.Data, o.Namespace, o.Tier = "d", "acme", "verified"
			}},
			{Args: []string{"registry", "namespace", "--data", "d", "--namespace", "acme"}, Want: func(o *NamespaceOptions) { o.Store.Data, o.Namespace = "d", "acme" }},
			{Args: []string{"registry", "namespace", "--data", "d"}},
		})
}
