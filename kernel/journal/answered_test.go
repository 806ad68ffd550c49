package journal

import (
	"context"
	"testing"
)

// The bytes a tree's plugins answered are kept at each checkpoint of its
// root (a pause, a stop), and read back as the latest count: a pause that
// keeps none (a child's, a turn's repause) never resets it.
func TestAnsweredBytesKeptAcrossCheckpoints(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "run_1")
	n, err := j.AnsweredBytes(ctx, "run_1")
	if err != nil || n != 0 {
		t.Fatalf("a new run kept nothing: %d %v", n, err)
	}
	steps := []func() error{
		func() error { return j.PauseRoot(ctx, "run_1", nil, 700) },
		func() error { return j.SetRunning(ctx, "run_1") },
		func() error { return j.Stop(ctx, "run_1", 900) },
		func() error { return j.Pause(ctx, "run_1", nil) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("checkpoint %d: %v", i, err)
		}
	}
	if n, err := j.AnsweredBytes(ctx, "run_1"); err != nil || n != 900 {
		t.Fatalf("want the latest count 900, got %d %v", n, err)
	}
}
