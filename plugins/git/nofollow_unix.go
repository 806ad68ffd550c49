//go:build unix

package git

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, refusing a symbolic link at its end
// and never blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
