package pkg

import (
	"sync"
	"time"

	"github.com/runxhq/runx/kernel/pkg/filestamp"
)

// fileDigests remembers each package file's digest under what stat says of
// the file (device, inode, size, modification and change times), so an
// unchanged package is not read and hashed again on every load: a server
// (runx mcp) loads its package for every call. The change time cannot be
// set by a user and moves on every write, so a file whose stamp is
// unchanged holds the bytes that were hashed. As git does with its index,
// a file changed within racyWindow of being stamped is never remembered:
// a write in the same clock tick as the stat could leave its stamp equal.
var fileDigests sync.Map // path -> digestEntry

var racyWindow = 2 * time.Second

type fileStamp = filestamp.Stamp

var stampOf, stampOfInfo = filestamp.Of, filestamp.OfInfo

type digestEntry struct {
	stamp fileStamp
	sum   string
}

// cachedFileDigest is fileDigest, served from fileDigests while the file's
// stamp is unchanged.
func cachedFileDigest(path string) (string, error) {
	st, ok := stampOf(path)
	if ok {
		if e, hit := fileDigests.Load(path); hit && e.(digestEntry).stamp == st {
			return e.(digestEntry).sum, nil
		}
	}
	// The stamp is taken before the bytes are read: a write after it moves
	// the change time, so the entry stored below is never matched again.
	sum, err := fileDigest(path)
	if err != nil {
		return "", err
	}
	if ok && st.Settled(racyWindow) {
		fileDigests.Store(path, digestEntry{stamp: st, sum: sum})
	}
	return sum, nil
}
