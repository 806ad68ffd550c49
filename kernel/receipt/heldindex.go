package receipt

import (
	"fmt"
	"os"
)

// The store appends its index lines through one descriptor, opened at the
// first append and kept until Close, instead of opening the index for each
// root line. Kept, it could outlive the file it was opened on: a store
// moved aside while this process runs, with a new one made at its path,
// would be given the new store's lines. So every use first stats the
// index's path (one call, where opening and closing the index again were
// two and a file to allocate) and opens the path again when the file there
// is not the one held. The same stat gives the index's length, which every
// use needs: the offset a line is at or past, or whether anything was
// appended since an offset.

// appendTarget returns the descriptor to append index lines through and the
// index's length before the caller's line; s.mu is held. Another process
// may append between the stat and the caller's write, so a line lands at or
// past the length, never before it.
func (s *Store) appendTarget() (*os.File, int64, error) {
	if s.index != nil {
		id, size, err := statPath(s.indexPath)
		if err == nil && id.same(s.indexID) {
			return s.index, size, nil
		}
		s.dropIndex()
	}
	return s.openTarget()
}

// lockTarget is appendTarget under the index's lock, which every process
// appending a root line or restoring the index takes (lockIndex). The path
// is checked once the lock is held, since the file may have been replaced
// while this waited for it; unlockTarget releases it. s.mu is held
// throughout, since the lock belongs to the descriptor, which every
// goroutine of this process shares.
func (s *Store) lockTarget(purpose string) (*os.File, int64, error) {
	f, size, _, err := s.lockTargetTorn(purpose)
	return f, size, err
}

// lockTargetTorn is lockTarget, reporting a torn tail it repaired
// (torntail.go): every append goes through it, so no line is ever glued
// to part of another.
func (s *Store) lockTargetTorn(purpose string) (*os.File, int64, *TornTail, error) {
	for {
		if s.index == nil {
			if _, _, err := s.openTarget(); err != nil {
				return nil, 0, nil, err
			}
		}
		if err := lockFile(s.index); err != nil {
			return nil, 0, nil, fmt.Errorf("lock receipt index to %s: %w", purpose, err)
		}
		id, size, err := statPath(s.indexPath)
		if err == nil && id.same(s.indexID) {
			size, torn, err := s.wholeTail(s.index, size)
			if err != nil {
				unlockTarget(s.index)
				return nil, 0, nil, err
			}
			return s.index, size, torn, nil
		}
		s.dropIndex() // and with it the lock, on a file no longer the index
		if err != nil {
			return nil, 0, nil, fmt.Errorf("open receipt index to %s: %w", purpose, err)
		}
	}
}

func unlockTarget(f *os.File) {
	// Closing the descriptor releases the lock too, so a failure here
	// holds it at most until the store is closed.
	_ = unlockFile(f)
}

func (s *Store) openTarget() (*os.File, int64, error) {
	f, id, size, err := openAppend(s.indexPath)
	if err != nil {
		return nil, 0, fmt.Errorf("open receipt index: %w", err)
	}
	s.index, s.indexID = f, id
	return f, size, nil
}

// dropIndex closes the held descriptor; s.mu is held.
func (s *Store) dropIndex() {
	if s.index != nil {
		s.index.Close()
		s.index = nil
	}
}
