package wire

import (
	"sync"
	"time"
)

// An answer that announces a page's size is received into a buffer made at
// that size, and making it (clearing it, and the first touch of each of its
// memory pages, which faults it in) was about a fifth of the host's CPU for
// a 4 MiB page, on the path between one page and the next. So when an
// answer takes its buffer, the buffer for the next answer of about that
// size is made on another goroutine, while this answer arrives and is
// checked. Each buffer is still made for one answer and handed out once:
// nothing is reused, so no answer can see another's bytes.

// Answers between spareMin and spareMax bytes get a buffer made ahead; the
// rest are made as they come (a small one costs little, and a buffer made
// ahead for a large one would hold that much memory idle).
const (
	spareMin = 256 << 10
	spareMax = 8 << 20
)

// spareKeep is how long a buffer made ahead waits for an answer before it
// is let go, so an idle host holds no page-sized buffer.
const spareKeep = 2 * time.Second

var spare struct {
	mu     sync.Mutex
	buf    []byte // made ahead, never handed out yet
	making bool
	// made counts the buffers made ahead; a buffer's timer lets it go
	// only if it is still the last one made. The timer holds the count,
	// not the buffer, so a buffer taken by an answer is not kept alive.
	made uint64
}

// freshOutput is an empty buffer with room for n bytes: the one made ahead
// when it fits, and a new one otherwise.
func freshOutput(n int) []byte {
	if n < spareMin || n > spareMax {
		return make([]byte, 0, n)
	}
	spare.mu.Lock()
	b := spare.buf
	if cap(b) >= n && cap(b)-n <= n/4 {
		spare.buf = nil
	} else {
		b = nil
	}
	start := !spare.making
	spare.making = true
	spare.mu.Unlock()
	if start {
		go makeSpare(n + n/16) // pages of one reader vary a little in size
	}
	if b == nil {
		b = make([]byte, 0, n)
	}
	return b
}

// makeSpare makes the next buffer and touches each of its memory pages, so
// the faults are taken here and not while an answer is copied into it.
func makeSpare(n int) {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 0
	}
	spare.mu.Lock()
	spare.buf, spare.making = b[:0], false
	spare.made++
	made := spare.made
	spare.mu.Unlock()
	time.AfterFunc(spareKeep, func() { dropSpare(made) })
}

// dropSpare lets the buffer made ahead go if it is still the made-th.
func dropSpare(made uint64) {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	if spare.made == made {
		spare.buf = nil
	}
}
