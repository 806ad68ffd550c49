package verify

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx verify takes exactly one receipt or run id, and --json.
func TestVerifyFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f, ReceiptID: "sha256-ab"} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"verify", "sha256-ab"}, Want: func(o *Options) {}},
		{Args: []string{"verify", "run_x"}, Want: func(o *Options) { o.ReceiptID = "run_x" }},
		{Args: []string{"verify", "sha256-ab", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"verify", "-j", "sha256-ab"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"verify", "sha256-ab", "--in-toto"}, Want: func(o *Options) { o.InToto = true }},
		{Args: []string{"verify", "--in-toto=maybe", "sha256-ab"}},
		{Args: []string{"verify", "--in-toto", "--notary", "rec.json", "--notary-key", "k.pem"}},
		{Args: []string{"verify"}},
		{Args: []string{"verify", "a", "b"}},
		{Args: []string{"verify", "a", "--nosuch"}},
		{Args: []string{"verify", "a", "--json=perhaps"}},
	})
}

// --notary and --notary-key go together and take no receipt id.
func TestVerifyNotaryFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"verify", "--notary", "rec.json", "--notary-key", "k.pem"}, Want: func(o *Options) {
			o.Notary = NotaryOptions{Document: "rec.json", Key: "k.pem"}
		}},
		{Args: []string{"verify", "--notary", "rec.json", "--notary-key", "k.pem", "--api-base-url", "http://127.0.0.1:1", "--allow-local-api", "-j"}, Want: func(o *Options) {
			o.Notary = NotaryOptions{Document: "rec.json", Key: "k.pem", APIBaseURL: "http://127.0.0.1:1", AllowLocalAPI: true}
			o.JSON = true
		}},
		{Args: []string{"verify", "--notary", "rec.json"}},
		{Args: []string{"verify", "--notary-key", "k.pem"}},
		{Args: []string{"verify", "sha256-ab", "--notary", "rec.json", "--notary-key", "k.pem"}},
		{Args: []string{"verify", "sha256-ab", "--allow-local-api"}},
	})
}
