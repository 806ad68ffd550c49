// Package filestamp is what stat says of a file (device, inode, mode,
// size, modification and change times): a file whose stamp is unchanged
// holds the bytes it held when stamped, since the change time cannot be
// set by a user and moves on every write. kernel/pkg remembers file
// digests, contents and listings under it.
package filestamp

import "time"

// Stamp is one file's stamp; two are equal only for an unchanged file.
type Stamp struct {
	dev, ino     uint64
	mode         uint32 // the file's type and permission bits
	size         int64
	mtime, ctime int64 // ns since the epoch
}

// Settled reports whether a stamp is old enough to be remembered: outside
// window in both its modification and change times. As git does with its
// index, a file changed within the window of being stamped is never
// remembered: a write in the same clock tick as the stat could leave its
// stamp equal.
func (st Stamp) Settled(window time.Duration) bool {
	return time.Since(time.Unix(0, st.ctime)) > window && time.Since(time.Unix(0, st.mtime)) > window
}

// Size is the file's size as stamped.
func (st Stamp) Size() int64 { return st.size }
