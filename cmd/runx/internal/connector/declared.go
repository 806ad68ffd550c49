package connector

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// maxSecretBytes bounds a value read from standard input: credentials are
// tokens and keys, never documents.
const maxSecretBytes = 64 << 10

// declaredVariable finds the connector o names, in the project's added
// connectors or the package (--package, else the current directory), else
// as a connector plugin (plugin, asked only then, reads the credential its
// description declares), and returns the variable its credential declares.
// A connector no one declares is refused: a binding for it would deliver
// nothing any run asks.
func declaredVariable(opts run.Options, o *UseOptions, plugin func(string) (string, error)) (string, error) {
	if !credential.ValidConnectorName(o.Connector) {
		return "", contract.Errorf(errcode.ConnectorNameInvalid, "%q is not a connector name", o.Connector)
	}
	c, err := registry.LoadAddedConnector(opts.ProjectDir, opts.HomeDir, o.Connector, "")
	if err != nil {
		return "", err
	}
	where := []string{filepath.Join(opts.ProjectDir, pkg.AddedConnectorsDir)}
	if c == nil {
		dir := o.Package
		if dir == "" {
			dir = opts.Cwd
		} else if !filepath.IsAbs(dir) {
			dir = filepath.Join(opts.Cwd, dir)
		}
		cdir := filepath.Join(dir, pkg.ConnectorsDir, filepath.FromSlash(o.Connector))
		where = append(where, filepath.Join(dir, pkg.ConnectorsDir))
		if _, err := os.Stat(filepath.Join(cdir, pkg.ConnectorFile)); err == nil {
			if c, err = pkg.LoadConnector(cdir, o.Connector); err != nil {
				return "", err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	if c == nil {
		v, err := plugin(o.Connector)
		if contract.CodeOf(err) == errcode.ConnectorNotFound {
			return "", contract.Errorf(errcode.ConnectorNotFound, "no connector %s is declared in %s or %s, and no connector plugin is installed under that name: run this in the package that declares it, name it with --package <dir>, or install and pin runx-plugin-%s", o.Connector, where[0], where[len(where)-1], o.Connector)
		}
		return v, err
	}
	if c.Credential == nil {
		return "", contract.Errorf(errcode.ConnectorCredentialUnsupported, "connector %s declares no credential, so there is nothing to bind", o.Connector)
	}
	return c.Credential.Variable, nil
}

// readPiped reads a value piped on standard input, never from a terminal
// (runx does not prompt: a secret typed at a prompt ends up in scrollback
// and shell tooling). required says a missing value is an error (runx
// secret set) rather than "none given" (runx connector use).
func readPiped(in io.Reader, required bool) ([]byte, error) {
	if f, ok := in.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			if required {
				return nil, contract.Errorf(errcode.SecretStdinTerminal, "runx reads a secret only from a pipe, never a prompt: e.g. `printf %%s \"$TOKEN\" | runx secret set <name>`")
			}
			return nil, nil
		}
	}
	if in == nil {
		return nil, nil
	}
	raw, err := io.ReadAll(io.LimitReader(in, maxSecretBytes+1))
	if err != nil {
		return nil, contract.Errorf(errcode.SecretUnreadable, "cannot read standard input: %v", err)
	}
	if len(raw) > maxSecretBytes {
		return nil, contract.Errorf(errcode.SecretTooLarge, "a secret is at most %d bytes", maxSecretBytes)
	}
	if len(raw) == 0 && !required {
		return nil, nil
	}
	return raw, nil
}
