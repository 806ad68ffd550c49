//go:build !linux

package journal

import "os"

// datasyncFile is File.Sync where fdatasync(2) is not available (on
// macOS File.Sync is F_FULLFSYNC, stronger than SQLite's default fsync).
func datasyncFile(f *os.File) error {
	return f.Sync()
}
