package journal

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasyncFile is fdatasync(2): what SQLite itself uses where it is built
// with it, and on ext4 it skips the journal commit a changed timestamp
// alone would cost; a file's size, which its reads depend on, is synced.
func datasyncFile(f *os.File) error {
	return unix.Fdatasync(int(f.Fd()))
}
