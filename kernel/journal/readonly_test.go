package journal

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Reading records read-only (shell completion) creates nothing where there
// are none, reads what a run recorded, and cannot write.
func TestOpenReadOnlyReadsAndWritesNothing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), ".runx")
	if _, err := OpenReadOnly(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no records: got %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("reading made %s", missing)
	}

	dir := t.TempDir()
	w, err := Open(dir, func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })
	if err != nil {
		t.Fatal(err)
	}
	newRun(t, w, "run_1")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "state.sqlite"))
	if err != nil {
		t.Fatal(err)
	}

	r, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	roots, err := r.Children(context.Background(), "")
	if err != nil || len(roots) != 1 || roots[0].RunID != "run_1" {
		t.Fatalf("read %v, %v; want run_1", roots, err)
	}
	if _, err := r.db.Exec(`DELETE FROM runs`); err == nil {
		t.Fatal("a write through the read-only records was allowed")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, "state.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Fatal("reading changed state.sqlite")
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(filepath.Join(dir, "state.sqlite"+side)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("reading left state.sqlite%s (%v)", side, err)
		}
	}
}
