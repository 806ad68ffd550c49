package journal

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// runLocks claims runs with open file description locks on one byte each
// of one file, locks/runs.lock, at an offset the run id hashes to: the
// same exclusion a lock file per run gave (a lock conflicts with every
// other open of the file, in this process or another, and the operating
// system releases it when its holder dies), without creating a file for
// every run a server drives (docs/decisions/journal.md, "The run driver lock").
// Two runs whose ids hash to one offset (62 bits of sha256) would wait on
// each other; within one journal they share the lock by count.
type runLocks struct {
	mu     sync.Mutex
	f      *os.File
	held   map[string]bool // runs claimed through this journal
	refs   map[int64]int   // offsets locked, by how many held runs
	closed bool            // the journal closed: the file goes with the last claim
}

func lockOffset(runID string) int64 {
	sum := sha256.Sum256([]byte(runID))
	return int64(binary.BigEndian.Uint64(sum[:8]) >> 2)
}

func (l *runLocks) claim(dir, runID string) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[runID] {
		return nil, drivenElsewhere(runID)
	}
	if l.closed {
		return nil, errors.New("the run records are closed")
	}
	if l.f == nil {
		if err := os.MkdirAll(filepath.Join(dir, "locks"), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, "locks", "runs.lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		l.f, l.held, l.refs = f, map[string]bool{}, map[int64]int{}
	}
	off := lockOffset(runID)
	if l.refs[off] == 0 {
		lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: off, Len: 1}
		if err := unix.FcntlFlock(l.f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
				return nil, drivenElsewhere(runID)
			}
			return nil, fmt.Errorf("lock run %s: %w", runID, err)
		}
	}
	l.refs[off]++
	l.held[runID] = true
	return func() { l.release(runID, off) }, nil
}

func (l *runLocks) release(runID string, off int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, runID)
	if l.refs[off]--; l.refs[off] > 0 {
		return
	}
	delete(l.refs, off)
	lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: 0, Start: off, Len: 1}
	_ = unix.FcntlFlock(l.f.Fd(), unix.F_OFD_SETLK, &lk)
	if l.closed && len(l.refs) == 0 {
		l.f.Close()
		l.f = nil
	}
}

// close closes the file once no run is claimed through it: a claim still
// held when its journal closes lasts until it is released (or the process
// ends), as a lock file per run did.
func (l *runLocks) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.f != nil && len(l.refs) == 0 {
		l.f.Close()
		l.f = nil
	}
}
