//go:build unix

package receipt

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// fileIdentity names the file at path by its device and inode.
func fileIdentity(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("stat receipt index: %w", err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", errors.New("stat receipt index: no device and inode")
	}
	return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino)), nil
}
