//go:build windows

package main

import (
	"fmt"
	"os"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// withPlatformPlugins adds nothing on Windows: the fs, process and command
// plugins rest on POSIX guarantees (no-follow opens, directory fsync,
// process sessions and groups, signals, advisory locks) this runx does not
// keep here, so they are not built rather than run without them. A skill
// calling one of their capabilities is refused by the kernel as calling a
// capability no plugin serves.
func withPlatformPlugins(m map[string]func() sdk.Plugin) map[string]func() sdk.Plugin { return m }

// superviseProcess refuses: long-lived processes are the process plugin's.
func superviseProcess([]string) int {
	fmt.Fprintf(os.Stderr, "runx: long-lived processes are not supported on Windows [%s]\n", errcode.PlatformUnsupported)
	return int(cli.ExitUsage)
}
