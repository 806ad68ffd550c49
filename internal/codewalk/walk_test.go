package codewalk

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestEngineWalk measures the two readings issue 22 names: from the
// engine's Run, and through one step from the step runner. The jumps
// into a file already left are held under a bound, so a change that sends a reader back and forth
// between files more than today fails here and says by how much.
func TestEngineWalk(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	g, err := Load(root, "./kernel/run/...")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		names []string
		bound int
	}{
		{[]string{"Engine.Run", "engine.Run"}, 130},
		{[]string{"runCtx.runStep"}, 123},
	} {
		var w Walk
		found := false
		for _, n := range c.names {
			if fn, err := g.Find(n); err == nil {
				w, found = g.Walk(fn), true
				break
			}
		}
		if !found {
			t.Fatalf("none of %v found in kernel/run", c.names)
		}
		t.Log(w)
		if w.Reentries > c.bound {
			t.Errorf("%s: %d jumps into a file already left, bound %d", w.Root, w.Reentries, c.bound)
		}
	}
}
