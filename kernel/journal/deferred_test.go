package journal

import (
	"context"
	"database/sql"
	"errors"
	"testing"
)

// synchronousIn reads the connection's synchronous level inside a
// transaction the journal runs under ctx (1 NORMAL, 2 FULL).
func synchronousIn(t *testing.T, j *Journal, ctx context.Context, fail bool) int {
	t.Helper()
	var level int
	err := j.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&level); err != nil {
			return err
		}
		if fail {
			return errors.New("rolled back")
		}
		return nil
	})
	if err != nil && !fail {
		t.Fatal(err)
	}
	return level
}

// Every transaction commits at synchronous=NORMAL, deferred or not, after
// a rollback too: the level is never switched (a durable transaction syncs
// the WAL itself, TestDurableTransitionsSyncTheWALOnce). Deferred records
// are the run's like any other, and a seal under a deferred context is
// durable all the same.
func TestDeferredTransitions(t *testing.T) {
	j := open(t)
	ctx := context.Background()
	for name, c := range map[string]struct {
		ctx  context.Context
		fail bool
	}{
		"deferred":             {Deferred(ctx), false},
		"durable":              {ctx, false},
		"deferred rolled back": {Deferred(ctx), true},
		"undeferred":           {undeferred(Deferred(ctx)), false},
	} {
		if got := synchronousIn(t, j, c.ctx, c.fail); got != 1 {
			t.Errorf("%s transaction at synchronous=%d, want 1 (NORMAL)", name, got)
		}
	}
	syncs := countSyncs(t, j)
	d := Deferred(ctx)
	if err := j.CreateRun(d, &Run{RunID: "r1", SkillName: "s", Method: "m", PackageDir: "/p", PackageDigest: "sha256:p", ClosureDigest: "sha256:c",
		Authority: []byte(`{}`), Inputs: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordStep(d, &Step{RunID: "r1", Address: "a", StepID: "a", Status: "success", Output: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if n := syncs.wal(j); n != 0 {
		t.Errorf("deferred transitions synced the WAL %d times", n)
	}
	if err := j.Seal(d, "r1", "completed", "", "sha256:x", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if n := syncs.wal(j); n != 1 {
		t.Errorf("a seal under a deferred context synced the WAL %d times, want 1", n)
	}
	r, err := j.GetRun(ctx, "r1")
	if err != nil || r.State != StateSealed {
		t.Fatalf("run = %+v %v", r, err)
	}
	if steps, err := j.Steps(ctx, "r1"); err != nil || steps["a"] == nil {
		t.Errorf("steps = %v %v", steps, err)
	}
}
