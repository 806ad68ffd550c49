package notary

import (
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// MemoryLog is a log's stored hashes held in memory (tlog's layout: the
// hashes of entry n follow those of n-1), for a reader that builds or
// replays a tree on its own, as the benchmarks and tests do. It is not safe
// for concurrent appends.
type MemoryLog struct {
	hashes []tlog.Hash
	n      int64
}

// Append adds a leaf and returns its index.
func (m *MemoryLog) Append(leaf []byte) (int64, error) {
	n := m.Size()
	add, err := tlog.StoredHashes(n, leaf, m)
	if err != nil {
		return 0, err
	}
	m.hashes = append(m.hashes, add...)
	m.n++
	return n, nil
}

// Size is the number of entries.
func (m *MemoryLog) Size() int64 {
	return m.n
}

// ReadHashes is tlog.HashReader.
func (m *MemoryLog) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(m.hashes)) {
			return nil, fmt.Errorf("notary: stored hash %d is not in the log", x)
		}
		out[i] = m.hashes[x]
	}
	return out, nil
}
