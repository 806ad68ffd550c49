//go:build !linux

package journal

import (
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// runLocks claims runs with a lock file each, locks/run-<id>.lock, where
// open file description locks are not available.
type runLocks struct{}

func (l *runLocks) claim(dir, runID string) (func(), error) {
	if err := os.MkdirAll(filepath.Join(dir, "locks"), 0o755); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(dir, "locks", "run-"+runID+".lock"))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, drivenElsewhere(runID)
	}
	return func() { _ = fl.Unlock() }, nil
}

func (l *runLocks) close() {}
