package redis

import (
	"context"
	"sync"
)

// headCache remembers the head record each stream had after this driver's
// last append or read of it, so the next append can compute its projection
// without first reading the head: one round trip in the common case. A stale
// entry costs one more round trip (the script answers "stale" with the
// current head); it can never put a wrong digest in the store.
type headCache struct {
	mu    sync.Mutex
	max   int
	heads map[string]string
}

func newHeadCache(max int) *headCache {
	if max <= 0 {
		max = 4096
	}
	return &headCache{max: max, heads: make(map[string]string)}
}

func (c *headCache) get(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heads[id]
}

func (c *headCache) put(id, head string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.heads[id]; !ok && len(c.heads) >= c.max {
		// Forget about half, chosen by map order: cheap, and a miss is only
		// a round trip.
		n := 0
		for k := range c.heads {
			delete(c.heads, k)
			if n++; n >= c.max/2 {
				break
			}
		}
	}
	c.heads[id] = head
}

// streamLocks serializes this process's appends to one stream (striped by
// stream digest). Without it, concurrent appenders in one process convoy:
// the one that just committed holds the fresh head and wins again while the
// others' snapshots go stale. Appends from other processes are still decided
// by the script alone.
type streamLocks [256]chan struct{}

func newStreamLocks() *streamLocks {
	var l streamLocks
	for i := range l {
		l[i] = make(chan struct{}, 1)
	}
	return &l
}

// lock waits for the stream's stripe, honouring ctx, and returns its unlock.
func (l *streamLocks) lock(ctx context.Context, id string) (func(), error) {
	stripe := l[hexValue(id[0])<<4|hexValue(id[1])]
	select {
	case stripe <- struct{}{}:
		return func() { <-stripe }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func hexValue(c byte) int {
	if c >= 'a' {
		return int(c-'a') + 10
	}
	return int(c - '0')
}
