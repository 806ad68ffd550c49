//go:build windows

package artifactstore

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockExclusive blocks until this process holds f's exclusive lock: the
// whole-file byte-range lock LockFileEx takes, Windows' flock.
func lockExclusive(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, ^uint32(0), ^uint32(0), new(windows.Overlapped))
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, ^uint32(0), ^uint32(0), new(windows.Overlapped))
}
