package journal

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// walSync makes the journal's write-ahead log durable after a durable
// commit. Every connection runs at synchronous=NORMAL, where SQLite syncs
// the WAL before each checkpoint, the database after each checkpoint and
// the WAL's header when it is reused, but not the WAL after a commit: that
// one sync, all FULL adds, is made here instead, once per durable
// transaction, after its COMMIT and before the transaction gives its
// connection back (docs/decisions/journal.md, "The WAL synced by the journal").
//
// It keeps one descriptor open on the -wal file. SQLite deletes that file
// when the database's last connection closes and makes a new one when a
// connection opens again, so before each sync the path is stat'ed and a
// descriptor on an earlier file is replaced. While the transaction holds
// its connection no other can be the last to close, so the file at the
// path is the one the commit wrote. Syncing or closing this descriptor
// touches no lock of SQLite's: it locks the database and -shm files,
// never the WAL.
type walSync struct {
	path string // state.sqlite-wal

	mu     sync.Mutex
	f      *os.File    // the WAL last synced, nil before the first sync
	fi     os.FileInfo // f's identity
	failed error       // set once a sync failed: the journal writes no more
}

// datasync flushes f's data, and the size that reads it, to the disk:
// fdatasync(2) on Linux (walsync_linux.go), File.Sync elsewhere. A
// variable so tests can count its calls and make it fail.
var datasync = datasyncFile

// refused is the error every write transaction returns once a sync
// failed, nil before.
func (w *walSync) refused() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// sync makes everything committed to the WAL so far durable. A failure is
// never retried: after a failed fsync the kernel may have dropped the
// dirty pages and the next fsync can succeed without writing them
// (PostgreSQL's "fsyncgate"), so the first failure is kept and every later
// write transaction refused with it.
func (w *walSync) sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed != nil {
		return w.failed
	}
	err := w.current()
	if err == nil {
		err = datasync(w.f)
	}
	if err != nil {
		w.failed = &contract.Error{Code: errcode.StateSyncFailed,
			Message: fmt.Sprintf("%s: a transition was committed but could not be made durable (%v); this process records nothing more: check the disk, then restart runx", w.path, err),
			Err:     err}
		return w.failed
	}
	return nil
}

// current points w.f at the file now at w.path, opening it (and syncing
// its directory, as SQLite does at a new WAL's first sync, so the file's
// name survives a power cut with its frames) when it is not the one held.
func (w *walSync) current() error {
	now, err := os.Stat(w.path)
	if err != nil {
		return err
	}
	if w.f != nil && os.SameFile(w.fi, now) {
		return nil
	}
	w.closeFile()
	f, err := os.Open(w.path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if !os.SameFile(fi, now) {
		// Nothing replaces the WAL while a connection is open; a file
		// changed under us is a state nothing here can vouch for.
		f.Close()
		return fmt.Errorf("%s was replaced while a transaction held it", w.path)
	}
	dir, err := os.Open(filepath.Dir(w.path))
	if err != nil {
		f.Close()
		return err
	}
	err = datasync(dir)
	dir.Close()
	if err != nil {
		f.Close()
		return err
	}
	w.f, w.fi = f, fi
	return nil
}

func (w *walSync) closeFile() {
	if w.f != nil {
		w.f.Close()
		w.f, w.fi = nil, nil
	}
}

func (w *walSync) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closeFile()
}

// requireWAL refuses a database SQLite did not put in WAL mode (the DSN
// asks for it; a file system without shared memory can refuse): at
// synchronous=NORMAL a rollback journal is not made durable at each
// commit, and there is no WAL to sync.
func requireWAL(db *sql.DB, path string) error {
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("read state journal mode: %w", err)
	}
	if mode != "wal" {
		return contract.Errorf(errcode.StateWALUnavailable, "%s is in journal mode %q, not WAL: runx keeps its run records only in WAL mode; move the project to a local file system", path, mode)
	}
	return nil
}
