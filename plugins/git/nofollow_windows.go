//go:build windows

package git

import (
	"errors"
	"os"
)

// openNoFollow opens path for reading, refusing anything but a regular
// file: Windows has no no-follow open, so the file opened must be the one
// Lstat saw there, not a link's target swapped in between.
func openNoFollow(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, errors.New("changed while opened")
	}
	return f, nil
}
