//go:build !linux && !darwin

package receipt

import (
	"fmt"
	"io"
	"os"
)

// readFile reads one receipt, refusing anything but a regular file of at most
// maxReceiptSize bytes.
func readFile(path string) ([]byte, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: %s is a symbolic link", errNotRegular, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s", errNotRegular, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReceiptSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxReceiptSize {
		return nil, fmt.Errorf("%s is more than any receipt (%d bytes)", path, maxReceiptSize)
	}
	return data, nil
}

// rawFile is an *os.File here; the plain-syscall version is a Linux and
// macOS optimisation only.
type rawFile struct{ f *os.File }

func createExclusive(path string) (rawFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	return rawFile{f}, err
}

func (f rawFile) write(data []byte) error { _, err := f.f.Write(data); return err }
func (f rawFile) sync() error             { return f.f.Sync() }
func (f rawFile) close() error            { return f.f.Close() }

// openPlain opens a file for reading.
func openPlain(path string) (*os.File, error) { return os.Open(path) }

// fileID is what os.SameFile compares.
type fileID struct{ info os.FileInfo }

func (a fileID) same(b fileID) bool {
	return a.info != nil && b.info != nil && os.SameFile(a.info, b.info)
}

// openAppend opens path to read and append, and returns the identity and
// length of the file it opened.
func openAppend(path string) (*os.File, fileID, int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fileID{}, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fileID{}, 0, err
	}
	return f, fileID{info}, info.Size(), nil
}

// statPath is the identity and length of the file at path now.
func statPath(path string) (fileID, int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileID{}, 0, err
	}
	return fileID{info}, info.Size(), nil
}
