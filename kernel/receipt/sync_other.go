//go:build !linux

package receipt

// syncStore has no portable single-call equivalent of syncfs(2) outside
// Linux. There the root receipt, the index and the directory are still
// fsynced by PutRoot, but children written without fsync rely on the
// filesystem's own writeback.
func syncStore(dir string) error { return nil }

// syncsStore says syncStore flushes nothing here: a root's file, index line
// and directory are each fsynced.
const syncsStore = false
