package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/runxhq/runx/sdk/errcode"
)

// A third-party plugin is started through runx's own launcher: the runx
// binary run again as `runx plugin launch <sha256> <path> [args...]`. The
// launcher checks the binary against its pin, starts it, and stays its
// parent, so what a plugin starts ends with it whichever way runx ends
// (launcher_linux.go says how). First-party plugins are built with the sdk,
// whose Serve already ends their group with their driver, and the process
// plugin's supervisors must outlive the run: they are started directly.

// launchVerb is the hidden command line of the launcher, after the binary.
var launchVerb = []string{"plugin", "launch"}

// launchExitChecksum is the launcher's exit status when the binary is not
// the one pinned: the host, seeing the start fail, hashes it again and
// reports plugin_checksum_mismatch.
const launchExitChecksum = 3

// LaunchMode runs the plugin launcher and reports its exit status when args
// (os.Args) are a launcher's command line; otherwise it returns false and
// does nothing. The runx binary, and any test binary a Supervisor uses as
// Discovery.Self, calls it first thing in main.
func LaunchMode(args []string) (int, bool) {
	if len(args) < 5 || args[1] != launchVerb[0] || args[2] != launchVerb[1] {
		return 0, false
	}
	if os.Getenv("RUNX_PLUGIN_MAGIC_COOKIE") == "" {
		fmt.Fprintln(os.Stderr, "runx: `runx plugin launch` is started by runx itself, not by hand [usage_error]")
		return 2, true
	}
	return launch(args[3], args[4], args[4:]), true
}

// launchArgs is the launcher's command line (after the binary) for a
// pinned plugin.
func launchArgs(l *Launch) []string {
	return append(append(append([]string{}, launchVerb...), hex.EncodeToString(l.SHA256), l.Path), l.Args...)
}

// openPinned opens the plugin binary and checks its bytes against the pin,
// read through the descriptor the launcher then executes: what runs is what
// was checked, with no window for the file to change between the two.
func openPinned(pin, path string) (*os.File, error) {
	want, err := hex.DecodeString(pin)
	if err != nil || len(want) != sha256.Size {
		return nil, fmt.Errorf("the pin %q is not a sha256 hex digest", pin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, err
	}
	if !bytes.Equal(h.Sum(nil), want) {
		f.Close()
		return nil, errChecksum
	}
	return f, nil
}

var errChecksum = fmt.Errorf("the plugin binary is not the one pinned [%s]", errcode.PluginChecksumMismatch)
