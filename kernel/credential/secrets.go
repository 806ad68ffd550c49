package credential

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/boundedre"
	"github.com/runxhq/runx/sdk/errcode"
)

// SecretsDir is the directory of stored secrets under the runx home.
const SecretsDir = "secrets"

// secretName is what a secret may be called: it becomes a file name.
var secretName = boundedre.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`, 1, 128)

// ValidSecretName reports whether name may name a stored secret.
func ValidSecretName(name string) bool {
	return secretName.MatchString(name) && !strings.Contains(name, "..")
}

// SecretPath is where the secret name is kept.
func SecretPath(homeDir, name string) string {
	return filepath.Join(homeDir, SecretsDir, name)
}

// SetSecret keeps value under name in the runx home: a 0600 file in a 0700
// directory, written whole (temporary file, then rename) so a reader never
// sees half a secret. One trailing newline is dropped, as a piped `echo`
// adds one. The value is never echoed, including in errors.
func SetSecret(homeDir, name string, value []byte) error {
	if !ValidSecretName(name) {
		return contract.Errorf(errcode.SecretNameInvalid, "a secret name is letters, digits, '.', '-' and '_' (at most 128, starting with a letter or digit)")
	}
	v := strings.TrimRight(string(value), "\r\n")
	if v == "" {
		return contract.Errorf(errcode.SecretEmpty, "no secret was given on standard input: pipe it, e.g. `printf %%s \"$TOKEN\" | runx secret set %s`", name)
	}
	if strings.ContainsAny(v, "\r\n\x00") {
		return contract.Errorf(errcode.SecretInvalid, "a secret is one line without NUL bytes")
	}
	dir := filepath.Join(homeDir, SecretsDir)
	if err := ensurePrivateDir(dir); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, name), []byte(v+"\n"), 0o600)
}

// ReadSecret returns the stored secret name. ok is false when none is
// stored. A secret file (or its directory) that others can read is refused:
// it may already have leaked, and runx will not deliver it as if it were
// private.
func ReadSecret(homeDir, name string) (value string, ok bool, err error) {
	if !ValidSecretName(name) {
		return "", false, contract.Errorf(errcode.SecretNameInvalid, "%q is not a secret name", name)
	}
	dir := filepath.Join(homeDir, SecretsDir)
	if err := checkPrivate(dir, 0o077); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", false, err
	}
	path := filepath.Join(dir, name)
	if err := checkPrivate(path, 0o077); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", false, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", false, contract.Errorf(errcode.SecretUnreadable, "cannot read the stored secret %s: %v", name, err)
	}
	v := strings.TrimRight(string(raw), "\r\n")
	return v, v != "", nil
}

// checkPrivate refuses a path whose permission bits intersect loose, or that
// is a symbolic link (a link could point anywhere). It returns
// fs.ErrNotExist (wrapped) when the path does not exist.
func checkPrivate(path string, loose fs.FileMode) error {
	info, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return contract.Errorf(errcode.SecretUnreadable, "cannot inspect %s: %v", path, err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return &contract.Error{Code: errcode.SecretPermissionsUnsafe, Message: fmt.Sprintf("%s is a symbolic link; runx keeps secrets only in its own files: remove it and store the secret again", path)}
	}
	if perm := info.Mode().Perm(); perm&loose != 0 {
		want := "600"
		if info.IsDir() {
			want = "700"
		}
		return &contract.Error{Code: errcode.SecretPermissionsUnsafe, Message: fmt.Sprintf("%s has mode %04o, readable by others; runx refuses it: run `chmod %s %s` (and rotate the secret if others could read it)", path, perm, want, path)}
	}
	return nil
}

// ensurePrivateDir makes dir (0700) or checks an existing one.
func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return checkPrivate(dir, 0o077)
}
