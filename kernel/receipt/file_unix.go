//go:build linux || darwin

package receipt

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// readFile reads one receipt with plain system calls. os.ReadFile first
// registers every file with the runtime poller (an fcntl and an epoll_ctl
// that fails for regular files); for the 30,002 small files of a tree at the
// bound that was about a third of the time spent reading them. It also refuses
// anything but a regular file, so a planted FIFO cannot stall a verifier.
func readFile(path string) ([]byte, error) {
	fd, err := openRetry(path, syscall.O_NOFOLLOW)
	if err == syscall.ELOOP {
		// A symlink in the store could point anywhere: a receipt is only
		// ever a regular file inside the store, so it is never followed.
		return nil, fmt.Errorf("%w: %s is a symbolic link", errNotRegular, path)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%w: %s", errNotRegular, path)
	}
	if st.Size > maxReceiptSize {
		return nil, fmt.Errorf("%s is %d bytes, more than any receipt (%d)", path, st.Size, maxReceiptSize)
	}
	// One byte of slack shows a file that grew since the stat.
	buf := make([]byte, 0, int(st.Size)+1)
	for {
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) == cap(buf) {
			if len(buf) > maxReceiptSize {
				return nil, fmt.Errorf("%s grew past %d bytes while being read", path, maxReceiptSize)
			}
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// rawFile is a file written with plain system calls, for the same reason
// readFile reads with them: os.OpenFile's poller registration was over 40% of
// Put's own cost (measured on tmpfs, where the filesystem adds little).
type rawFile struct {
	fd   int
	path string
}

func createExclusive(path string) (rawFile, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return rawFile{}, &fs.PathError{Op: "create", Path: path, Err: err}
		}
		return rawFile{fd: fd, path: path}, nil
	}
}

func (f rawFile) write(data []byte) error {
	for len(data) > 0 {
		n, err := syscall.Write(f.fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "write", Path: f.path, Err: err}
		}
		data = data[n:]
	}
	return nil
}

func (f rawFile) sync() error {
	if err := syscall.Fsync(f.fd); err != nil {
		return &fs.PathError{Op: "sync", Path: f.path, Err: err}
	}
	return nil
}

func (f rawFile) close() error {
	if err := syscall.Close(f.fd); err != nil {
		return &fs.PathError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}

// openPlain opens a file for reading with plain system calls, as readFile
// does, and wraps it without registering it with the runtime poller (the
// index is opened and locked once a sealed root).
func openPlain(path string) (*os.File, error) {
	fd, err := openRetry(path, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// fileID is a file's device and inode: what says two paths, or a path and
// a descriptor, name one file.
type fileID struct{ dev, ino uint64 }

func (a fileID) same(b fileID) bool { return a == b }

func idOf(st *syscall.Stat_t) fileID { return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)} }

// openAppend opens path to read and append with plain system calls, as
// rawFile does, and returns the identity and length of the file it opened.
func openAppend(path string) (*os.File, fileID, int64, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_APPEND|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fileID{}, 0, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			syscall.Close(fd)
			return nil, fileID{}, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), idOf(&st), st.Size, nil
	}
}

// statPath is the identity and length of the file at path now.
func statPath(path string) (fileID, int64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileID{}, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return idOf(&st), st.Size, nil
}
