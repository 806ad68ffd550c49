//go:build linux || darwin

package receipt

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f, released by unlockFile
// or when f closes.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// unlockFile releases lockFile's lock on a descriptor that stays open.
func unlockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		if err != syscall.EINTR {
			return err
		}
	}
}
