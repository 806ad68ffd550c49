package engine

import (
	"container/list"
	"sync"
)

// DefaultCacheBytes is the default cache's budget of bundled JavaScript.
const DefaultCacheBytes = 64 << 20

// Cache keeps compiled programs by the digest of their closure, least
// recently used first out, so a warm call skips bundling and compiling. It
// weighs each program by its bundled source size; goja's compiled form is a
// small multiple of that. A Cache is safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of *Program, most recently used at the front
	byDigest map[string]*list.Element
}

// NewCache returns a cache holding at most maxBytes of bundled JavaScript.
// NewCache(0) caches nothing: every Bundle bundles and compiles.
func NewCache(maxBytes int) *Cache {
	return &Cache{maxBytes: maxBytes, order: list.New(), byDigest: map[string]*list.Element{}}
}

var defaultCache = NewCache(DefaultCacheBytes)

// Bundle returns the compiled program for src, from the process-wide cache
// when this closure was compiled before. Refusals are *Error values.
func Bundle(src Source) (*Program, error) { return defaultCache.Bundle(src) }

// Bundle returns the compiled program for src, compiling it on a miss.
// Concurrent misses on one closure may each compile; the last one stored
// wins, and all of them are correct.
func (c *Cache) Bundle(src Source) (*Program, error) {
	if err := src.checkSize(); err != nil {
		return nil, err
	}
	digest := src.digest()
	if p := c.get(digest); p != nil {
		return p, nil
	}
	p, err := compile(src, digest)
	if err != nil {
		return nil, err
	}
	c.put(p)
	return p, nil
}

// Len is the number of programs cached.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func (c *Cache) get(digest string) *Program {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byDigest[digest]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*Program)
}

func (c *Cache) put(p *Program) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.size > c.maxBytes {
		return
	}
	if el, ok := c.byDigest[p.digest]; ok {
		c.bytes -= el.Value.(*Program).size
		c.order.Remove(el)
	}
	c.byDigest[p.digest] = c.order.PushFront(p)
	c.bytes += p.size
	for c.bytes > c.maxBytes {
		oldest := c.order.Back()
		evicted := c.order.Remove(oldest).(*Program)
		delete(c.byDigest, evicted.digest)
		c.bytes -= evicted.size
	}
}
