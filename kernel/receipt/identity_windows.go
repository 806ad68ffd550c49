//go:build windows

package receipt

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity names the file at path by its volume serial number and file
// index, Windows' device and inode: the same file keeps them while it
// exists, and a file made in its place gets new ones.
func fileIdentity(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("stat receipt index: %w", err)
	}
	defer f.Close()
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d); err != nil {
		return "", fmt.Errorf("stat receipt index: %w", err)
	}
	return fmt.Sprintf("%d:%d", uint64(d.VolumeSerialNumber), uint64(d.FileIndexHigh)<<32|uint64(d.FileIndexLow)), nil
}
