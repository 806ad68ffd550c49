package fs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"syscall"
)

// The change path's file operations go to the system calls directly, as
// search's reads do: an os.File registers each descriptor with the runtime
// poller and sets a finalizer, which for a bundle of a hundred small files
// costs more CPU than the writes themselves.

// digestAt reads what a real path holds now without following a link
// swapped in at its end or blocking on a FIFO. A link there is reported as
// a file whose digest matches nothing, so a check refuses it.
func digestAt(real string) (exists bool, digest string, err error) {
	exists, digest, fd, err := digestHeld(real)
	if fd >= 0 {
		syscall.Close(fd)
	}
	return exists, digest, err
}

// digestHeld is digestAt that leaves the file open (fd >= 0) for the caller
// to close. A change holds the file it replaces open across its rename, so
// the replaced file's blocks are freed when the caller closes it, after the
// commit, not inside the rename: on a filesystem mounted with discard,
// freeing blocks trims them on the spot, and a hundred trims in a row
// were most of a bundle's time.
func digestHeld(real string) (exists bool, digest string, fd int, err error) {
	fd, err = openRaw(real, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch err {
	case nil:
	case syscall.ENOENT, syscall.ENOTDIR:
		return false, "", -1, nil
	case syscall.ELOOP:
		return true, "symlink", -1, nil
	default:
		return false, "", -1, &os.PathError{Op: "open", Path: real, Err: err}
	}
	exists, digest, err = digestFD(fd, real)
	return exists, digest, fd, err
}

func digestFD(fd int, real string) (exists bool, digest string, err error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return false, "", &os.PathError{Op: "fstat", Path: real, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return true, "not-a-file", nil
	}
	h := sha256.New()
	buf := make([]byte, 32<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, "", &os.PathError{Op: "read", Path: real, Err: err}
		}
		if n == 0 {
			break
		}
		h.Write(buf[:n])
	}
	return true, "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writeSynced writes path whole with exactly mode and syncs it before
// closing. flags add O_EXCL (a staged file, which must be new) or O_TRUNC
// (a journal's temp, which may be left from a crash).
func writeSynced(path string, content []byte, mode os.FileMode, flags int) error {
	fd, err := openRaw(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_NOFOLLOW|flags, 0o600)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	err = writeAll(fd, content)
	if err == nil {
		// Fchmod rather than the create mode, which the umask would
		// narrow: a replaced file keeps the mode it had.
		err = syscall.Fchmod(fd, uint32(mode.Perm()))
	}
	if err == nil {
		err = syscall.Fsync(fd)
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// syncDir makes the directory's entries (a rename, a new file) durable.
func syncDir(dir string) error {
	fd, err := openRaw(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	err = syscall.Fsync(fd)
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}

func openRaw(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
