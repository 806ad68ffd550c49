// Package atomicfile writes a file whole or not at all: the bytes go to a
// temporary file beside it, are synced, and are renamed into place (or
// linked, where an existing file must be refused), so a reader or a crash
// never leaves a part. The kernel and plugins share it; it imports nothing
// of either.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with permissions perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

// Create writes path with data only if nothing is there yet: an existing
// path is an error satisfying errors.Is(err, fs.ErrExist).
func Create(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

func write(path string, data []byte, perm fs.FileMode, exclusive bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := fill(tmp, data, perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if exclusive {
		return os.Link(tmp.Name(), path)
	}
	return os.Rename(tmp.Name(), path)
}

func fill(f *os.File, data []byte, perm fs.FileMode) error {
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// Sync makes what path holds durable: a file's bytes, or a directory's
// entries (a rename, a link or a new file made in it). The first error wins:
// a failed sync is the one to report, not the close after it.
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
