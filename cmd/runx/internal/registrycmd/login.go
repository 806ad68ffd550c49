package registrycmd

import (
	"context"
	"fmt"
	stdio "io"
	"os"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	notaryclient "github.com/runxhq/runx/kernel/notary/client"
	"github.com/runxhq/runx/kernel/registry/client"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// maxTokenBytes bounds the token read from standard input.
const maxTokenBytes = 4 << 10

// LoginOptions are `runx login`'s arguments. The token is read from
// standard input, never from an argument.
type LoginOptions struct {
	Factory  *cli.Factory
	For      string
	Registry string
	// APIBaseURL and AllowLocalAPI name the public API instead (runx
	// notarize's): the target when no registry is named.
	APIBaseURL    string
	AllowLocalAPI bool
	JSON          bool
}

// NewLogin wires `runx login --for publish --registry <url>`: the publisher
// token piped on standard input is checked with the registry (whoami) and
// kept in the runx home's secrets, 0600, under a name for that registry
// alone. A test passes runF to see the options a command line parses to.
func NewLogin(f *cli.Factory, runF func(*LoginOptions) error) *cobra.Command {
	opts := &LoginOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "login --for publish",
		Short: "Store a publish token (read from standard input) for a registry or the public API in the runx home",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.For != "publish" {
				return cli.Usagef("--for takes publish (a registry publisher token); got %q", opts.For)
			}
			if opts.Registry != "" && (opts.APIBaseURL != "" || opts.AllowLocalAPI) {
				return cli.Usagef("--registry names a registry, --api-base-url the public API; give one")
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Login(c.Context(), opts))
		},
	}
	cmd.Flags().StringVar(&opts.For, "for", "", "what the credential is for: publish (a registry publisher token)")
	addRegistryFlag(cmd, &opts.Registry)
	cmd.Flags().StringVar(&opts.APIBaseURL, "api-base-url", "", "the public API's base URL, when no registry is named (default "+notaryclient.EnvURL+", else "+notaryclient.DefaultURL+")")
	cmd.Flags().BoolVar(&opts.AllowLocalAPI, "allow-local-api", false, "allow a public API on this machine or a private network (local dogfood)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// LoginReport is what `runx login --json` prints: never the token.
type LoginReport struct {
	Schema     string   `json:"schema"`
	Registry   string   `json:"registry"`
	Secret     string   `json:"secret"`
	Namespaces []string `json:"namespaces"`
}

// Login checks the piped token with the registry and stores it.
func Login(ctx context.Context, opts *LoginOptions) cli.ExitCode {
	f, io := opts.Factory, opts.Factory.IO
	token, err := readToken(io.In)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	f.Taint.Add(token)
	o, base, err := loginTarget(f, opts)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	c, err := client.New(base, client.Options{Token: token})
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	owned, err := c.WhoAmI(ctx)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	name := client.TokenSecretName(c.URL())
	if err := credential.SetSecret(o.HomeDir, name, []byte(token)); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, LoginReport{Schema: "runx.login.v1", Registry: c.URL(), Secret: name, Namespaces: owned})
		return cli.ExitOK
	}
	fmt.Fprintf(io.Out, "stored the publisher token for %s (namespaces: %s)\n", c.URL(), strings.Join(owned, ", "))
	return cli.ExitOK
}

// loginTarget is the URL the token is for: the registry --registry or
// RUNX_REGISTRY_URL names, else the public API (--api-base-url,
// RUNX_PUBLIC_API_BASE_URL, else its default) under its own rules: https,
// or a local address only with --allow-local-api.
func loginTarget(f *cli.Factory, opts *LoginOptions) (run.Options, string, error) {
	o, err := run.ResolveOptions(f.Options())
	if err != nil {
		return run.Options{}, "", err
	}
	if opts.APIBaseURL == "" && !opts.AllowLocalAPI {
		if raw, err := client.ResolveURL(opts.Registry, o.LookupEnv); err == nil {
			base, err := client.CheckURL(raw)
			return o, base, err
		}
	}
	base, err := notaryclient.CheckURL(notaryclient.ResolveURL(opts.APIBaseURL, o.LookupEnv), opts.AllowLocalAPI)
	return o, base, err
}

// readToken reads the token piped on standard input, never from a
// terminal: runx does not prompt.
func readToken(in stdio.Reader) (string, error) {
	if f, ok := in.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			return "", contract.Errorf(errcode.SecretStdinTerminal, "runx reads a token only from a pipe, never a prompt: e.g. `printf %%s \"$TOKEN\" | runx login --for publish --registry <url>`")
		}
	}
	if in == nil {
		return "", contract.Errorf(errcode.RegistryTokenMissing, "no token was piped on standard input")
	}
	raw, err := stdio.ReadAll(stdio.LimitReader(in, maxTokenBytes+1))
	if err != nil {
		return "", contract.Errorf(errcode.SecretUnreadable, "cannot read standard input: %v", err)
	}
	if len(raw) > maxTokenBytes {
		return "", contract.Errorf(errcode.SecretTooLarge, "a token is at most %d bytes", maxTokenBytes)
	}
	token := strings.TrimSpace(string(raw))
	if token == "" || strings.ContainsAny(token, "\r\n\x00 ") {
		return "", contract.Errorf(errcode.RegistryTokenMissing, "no token was piped on standard input (one line, no spaces)")
	}
	return token, nil
}
