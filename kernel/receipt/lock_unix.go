//go:build linux || darwin

package receipt

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f, released when f closes.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
