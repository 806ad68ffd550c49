package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/sdk/errcode"
)

// maxSocketPath is the longest unix socket path runx hands a plugin: a
// socket's address holds 108 bytes on Linux and 104 on macOS, each with
// its terminating NUL. A longer path fails the plugin's bind ("bind:
// invalid argument"), so every start would fail.
const maxSocketPath = 103

// socketDirPattern names the private directory under a base; os.MkdirTemp
// puts up to 10 digits in place of its "*".
const socketDirPattern = "runx-plugins-*"

// pluginSocketName is what go-plugin names a plugin's socket in its
// directory: "plugin" and up to 10 digits.
const pluginSocketName = "plugin0123456789"

// socketBases are the directories a socket directory may be made in, in
// order: the temporary directory (TMPDIR), the user's runtime directory,
// and /tmp, which always leaves room.
func socketBases() []string {
	bases := []string{os.TempDir()}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		bases = append(bases, d)
	}
	return append(bases, "/tmp")
}

// socketFits says whether a socket directory made under base leaves room
// for every socket go-plugin makes in it.
func socketFits(base string) bool {
	dir := filepath.Join(base, socketDirPattern[:len(socketDirPattern)-1]+"0123456789")
	return len(filepath.Join(dir, pluginSocketName)) <= maxSocketPath
}

// makeSocketDir makes the fresh directory a supervisor's plugins put their
// sockets in, under the first base where every socket's path fits. It is
// private (0700, made anew so no one else holds it), which is what protects
// the channel. A long TMPDIR is passed over rather than failing every
// plugin's start; when no base fits, the refusal names the path and the
// limit.
func makeSocketDir(bases []string) (string, error) {
	var tried []string
	var errs []error
	for _, base := range bases {
		if !socketFits(base) {
			tried = append(tried, base)
			continue
		}
		dir, err := os.MkdirTemp(base, socketDirPattern)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			_ = os.RemoveAll(dir)
			return "", fmt.Errorf("secure plugin socket directory: %w", err)
		}
		return dir, nil
	}
	if len(errs) > 0 || len(tried) == 0 {
		return "", fmt.Errorf("create plugin socket directory: %w", errors.Join(errs...))
	}
	return "", hostErr(errcode.PluginSocketPathTooLong, nil, "no directory leaves room for a plugin's socket: under %q a socket's path would pass the %d-byte limit of a unix socket address; set TMPDIR to a shorter directory", tried[0], maxSocketPath)
}
