package registrycmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

func group(sub *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: "registry"}
	cmd.AddCommand(sub)
	return cmd
}

// The publisher token is never a flag.
func TestPublishFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*PublishOptions) error) *cobra.Command { return group(NewPublish(f, runF)) },
		func() *PublishOptions { return &PublishOptions{Factory: f} },
		[]clitest.Case[PublishOptions]{
			{Args: []string{"registry", "publish", "skills/x", "--registry", "https://r.example", "--publisher", "acme", "--json"}, Want: func(o *PublishOptions) {
				o.Dir, o.Registry, o.Publisher, o.JSON = "skills/x", "https://r.example", "acme", true
			}},
			{Args: []string{"registry", "publish", "skills/x", "--token", "runxreg_x"}},
			{Args: []string{"registry", "publish"}},
		})
}

func TestSearchFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*SearchOptions) error) *cobra.Command { return group(NewSearch(f, runF)) },
		func() *SearchOptions { return &SearchOptions{Factory: f, Limit: 20} },
		[]clitest.Case[SearchOptions]{
			{Args: []string{"registry", "search", "weather", "today", "--json"}, Want: func(o *SearchOptions) { o.Words, o.JSON = "weather today", true }},
			{Args: []string{"registry", "search", "w", "--limit", "5"}, Want: func(o *SearchOptions) { o.Words, o.Limit = "w", 5 }},
			{Args: []string{"registry", "search"}},
		})
}

func TestInstallFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*InstallOptions) error) *cobra.Command { return group(NewInstall(f, runF)) },
		func() *InstallOptions { return &InstallOptions{Factory: f} },
		[]clitest.Case[InstallOptions]{
			{Args: []string{"registry", "install", "acme/weather@1.0.0", "--digest", "sha256:ab"}, Want: func(o *InstallOptions) { o.Ref, o.Digest = "acme/weather@1.0.0", "sha256:ab" }},
			{Args: []string{"registry", "install", "--records", "-", "--json"}, Want: func(o *InstallOptions) { o.Records, o.JSON = "-", true }},
			{Args: []string{"registry", "install"}},
			{Args: []string{"registry", "install", "acme/weather", "--records", "-"}},
			{Args: []string{"registry", "install", "--records", "-", "--digest", "sha256:ab"}},
			{Args: []string{"registry", "install", "a/b", "c/d"}},
		})
}

// A key is trusted only for namespaces it is given.
func TestTrustFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*TrustOptions) error) *cobra.Command { return group(NewTrust(f, runF)) },
		func() *TrustOptions { return &TrustOptions{Factory: f} },
		[]clitest.Case[TrustOptions]{
			{Args: []string{"registry", "trust", "add", "--registry", "https://r.example", "--key", "ed25519:k", "--namespace", "acme", "--namespace", "acme-*"}, Want: func(o *TrustOptions) {
				o.Registry, o.Key, o.Namespaces = "https://r.example", "ed25519:k", []string{"acme", "acme-*"}
			}},
			{Args: []string{"registry", "trust", "add", "--key", "ed25519:k"}},
			{Args: []string{"registry", "trust", "add", "--namespace", "acme"}},
		})
}

func TestLoginFlags(t *testing.T) {
	f := clitest.Factory("")
	clitest.Table(t, func(runF func(*LoginOptions) error) *cobra.Command { return NewLogin(f, runF) },
		func() *LoginOptions { return &LoginOptions{Factory: f} },
		[]clitest.Case[LoginOptions]{
			{Args: []string{"login", "--for", "publish", "--registry", "https://r.example"}, Want: func(o *LoginOptions) { o.For, o.Registry = "publish", "https://r.example" }},
			{Args: []string{"login"}},
			{Args: []string{"login", "--for", "agent"}},
			{Args: []string{"login", "--for", "publish", "runxreg_token"}},
			{Args: []string{"login", "--for", "publish"}, Want: func(o *LoginOptions) { o.For = "publish" }},
			{Args: []string{"login", "--for", "publish", "--api-base-url", "http://127.0.0.1:1", "--allow-local-api"}, Want: func(o *LoginOptions) {
				o.For, o.APIBaseURL, o.AllowLocalAPI = "publish", "http://127.0.0.1:1", true
			}},
			{Args: []string{"login", "--for", "publish", "--registry", "https://r.example", "--api-base-url", "https://api.example"}},
		})
}
