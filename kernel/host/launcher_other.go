//go:build !linux

package host

import (
	"fmt"
	"os"
)

// launchers is false outside Linux: there is no parent-death signal or
// subreaper to build a launcher on, so a plugin is started directly and
// runx's own stop ends it and its group.
const launchers = false

func launch(_, path string, _ []string) int {
	fmt.Fprintf(os.Stderr, "runx plugin launcher: not available on this system (%s)\n", path)
	return 1
}
