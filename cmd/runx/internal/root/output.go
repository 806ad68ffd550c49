package root

import (
	"io"
	"sync"
)

// guardedOut is stdout for one invocation: an interrupt that ends runx at
// once can tell whether a document was already printed, and print its own
// only if not, so `--json` prints exactly one document even when
// interrupted. After the interrupt's document nothing more is written.
type guardedOut struct {
	mu     sync.Mutex
	w      io.Writer
	wrote  bool
	closed bool
}

func (g *guardedOut) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	g.wrote = g.wrote || len(p) > 0
	return g.w.Write(p)
}

// last runs fn with the writer if nothing was written yet, then closes it.
func (g *guardedOut) last(fn func(w io.Writer)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.wrote && !g.closed {
		fn(g.w)
	}
	g.closed = true
}
