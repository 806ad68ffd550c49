package journal

import (
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/runxhq/runx/kernel/contract"
)

// Driver is a held claim to drive one run. The operating system releases it
// when the holding process dies, so a crashed driver never strands a run.
type Driver struct {
	lock *flock.Flock
}

// Release gives the run up for its next driver.
func (d *Driver) Release() { _ = d.lock.Unlock() }

// Drive claims a run for this process, or refuses when another holds it.
func (j *Journal) Drive(runID string) (*Driver, error) {
	dir := filepath.Join(j.dir, "locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l := flock.New(filepath.Join(dir, "run-"+runID+".lock"))
	ok, err := l.TryLock()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, contract.Errorf("run_driven_elsewhere", "run %s is being driven by another runx process; only one driver works a run at a time", runID)
	}
	return &Driver{lock: l}, nil
}
