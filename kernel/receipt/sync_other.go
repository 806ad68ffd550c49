//go:build !linux

package receipt

// syncStore has no portable single-call equivalent of syncfs(2) outside
// Linux. There the root receipt, the index and the directory are still
// fsynced by PutRoot, but children written without fsync rely on the
// filesystem's own writeback.
func syncStore(dir string) error { return nil }
