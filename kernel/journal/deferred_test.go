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

// A deferred context commits at synchronous=NORMAL, and the connection is
// back at FULL afterwards, after a rollback too; the transitions a host or
// person relies on (seal, pause, stop, decisions, requests) lift the
// deferral and commit at FULL.
func TestDeferredTransitions(t *testing.T) {
	j := open(t)
	ctx := context.Background()
	if got := synchronousIn(t, j, Deferred(ctx), false); got != 1 {
		t.Errorf("deferred transition at synchronous=%d, want 1 (NORMAL)", got)
	}
	if got := synchronousIn(t, j, ctx, false); got != 2 {
		t.Errorf("after a deferred transition: synchronous=%d, want 2 (FULL)", got)
	}
	synchronousIn(t, j, Deferred(ctx), true)
	if got := synchronousIn(t, j, ctx, false); got != 2 {
		t.Errorf("after a deferred rollback: synchronous=%d, want 2 (FULL)", got)
	}
	if got := synchronousIn(t, j, undeferred(Deferred(ctx)), false); got != 2 {
		t.Errorf("an undeferred transition at synchronous=%d, want 2 (FULL)", got)
	}
	// Deferred records are the run's like any other.
	d := Deferred(ctx)
	if err := j.CreateRun(d, &Run{RunID: "r1", SkillName: "s", Method: "m", PackageDir: "/p", PackageDigest: "sha256:p", ClosureDigest: "sha256:c",
		Authority: []byte(`{}`), Inputs: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordStep(d, &Step{RunID: "r1", Address: "a", StepID: "a", Status: "success", Output: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := j.Seal(d, "r1", "completed", "", "sha256:x", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	r, err := j.GetRun(ctx, "r1")
	if err != nil || r.State != StateSealed {
		t.Fatalf("run = %+v %v", r, err)
	}
	if steps, err := j.Steps(ctx, "r1"); err != nil || steps["a"] == nil {
		t.Errorf("steps = %v %v", steps, err)
	}
}
