package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

func fixedClock() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// A state.sqlite that is empty, holds no database, or is not a file is
// refused with a code, never opened as a new, empty history.
func TestDamagedStateFileIsRefused(t *testing.T) {
	tests := []struct {
		name string
		make func(path string) error
		code errcode.Code
	}{
		{"zero length", func(p string) error { return os.WriteFile(p, nil, 0o600) }, errcode.StateDamaged},
		{"not a database", func(p string) error { return os.WriteFile(p, []byte("not a database at all, only some text"), 0o600) }, errcode.StateDamaged},
		{"header only", func(p string) error { return os.WriteFile(p, []byte(sqliteHeader), 0o600) }, errcode.StateDamaged},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }, errcode.StateUnreadable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.sqlite")
			if err := tt.make(path); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			j, err := Open(dir, fixedClock)
			if err == nil {
				j.Close()
				t.Fatal("a damaged state file was opened")
			}
			var ce *contract.Error
			if !errors.As(err, &ce) || ce.Code != tt.code {
				t.Fatalf("error %v, want code %s", err, tt.code)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Fatalf("the damaged file was changed: %q, was %q", after, before)
			}
		})
	}
}

// A new project's state file is made whole before it is in place: it opens,
// keeps what is recorded, and leaves no file of its making behind.
func TestNewStateFileIsCreatedWhole(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	newRun(t, j, "run_1")
	j.Close()
	names, _ := filepath.Glob(filepath.Join(dir, "state.sqlite.new-*"))
	if len(names) != 0 {
		t.Fatalf("files left from creating the state file: %v", names)
	}
	j, err = Open(dir, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.GetRun(context.Background(), "run_1"); err != nil {
		t.Fatalf("the run recorded is gone: %v", err)
	}
}
