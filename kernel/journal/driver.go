package journal

import (
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Driver is a held claim to drive one run. The operating system releases it
// when the holding process dies, so a crashed driver never strands a run.
type Driver struct {
	once    sync.Once
	release func()
}

// Release gives the run up for its next driver.
func (d *Driver) Release() { d.once.Do(d.release) }

// Drive claims a run for this process, or refuses when another holds it:
// another process, or another drive of this journal (driverlock_*.go).
func (j *Journal) Drive(runID string) (*Driver, error) {
	release, err := j.locks.claim(j.dir, runID)
	if err != nil {
		return nil, err
	}
	return &Driver{release: release}, nil
}

func drivenElsewhere(runID string) error {
	return contract.Errorf(errcode.RunDrivenElsewhere, "run %s is being driven by another runx process; only one driver works a run at a time", runID)
}
