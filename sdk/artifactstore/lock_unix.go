//go:build unix

package artifactstore

import (
	"os"
	"syscall"
)

// lockExclusive blocks until this process holds f's exclusive lock.
func lockExclusive(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
