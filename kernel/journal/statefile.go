package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/errcode"
)

// Codes for a state.sqlite runx cannot use. Neither is ever read as an
// empty history: a project whose run records are gone must say so, or a
// paused run, its decisions and its effects' custody would vanish quietly.

// sqliteHeader begins every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// prepareStateFile makes sure path is a state file runx can open: a new
// project's is created whole first (createStateFile), so an existing file
// that is empty or holds no database is damage, refused with a code, never
// opened by SQLite as a new, empty one.
func prepareStateFile(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return createStateFile(path)
	case err != nil:
		return unreadableState(path, err)
	case !info.Mode().IsRegular():
		return contract.Errorf(errcode.StateUnreadable, "%s is not a regular file; runx keeps its run records in a regular file there. Move it aside to start new records: mv %s %s.damaged", path, path, path)
	case info.Size() == 0:
		return damagedState(path, "is empty")
	}
	f, err := os.Open(path)
	if err != nil {
		return unreadableState(path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteHeader {
		return damagedState(path, "is not a SQLite database")
	}
	return nil
}

func damagedState(path, what string) error {
	return contract.Errorf(errcode.StateDamaged, "%s %s, so the project's run records cannot be read (a state file runx made never is); "+
		"runx does not start over on it. Move it aside to start new records: mv %s %s.damaged", path, what, path, path)
}

func unreadableState(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return contract.Errorf(errcode.StateUnreadable, "cannot open %s (%v); check its permissions", path, err)
}

// createStateFile makes a new project's state file under another name,
// with its schema and WAL mode in place, and links it into place: a crash
// part way leaves no state.sqlite (the next open starts again), and two
// processes starting one project at once end with one file, the second
// using the first's.
func createStateFile(path string) error {
	tmp := path + ".new-" + strconv.Itoa(os.Getpid())
	for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
		os.Remove(p)
	}
	defer func() {
		for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			os.Remove(p)
		}
	}()
	db, err := sql.Open("sqlite", stateDSN(tmp))
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	made := &Journal{db: db, dir: filepath.Dir(path)}
	err = requireWAL(db, path)
	if err == nil {
		err = made.migrate()
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := atomicfile.Sync(tmp); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return atomicfile.Sync(filepath.Dir(path))
}

// stateDSN opens path with the pragmas every connection uses.
func stateDSN(path string) string {
	// Every connection commits at synchronous=NORMAL; a durable
	// transaction syncs the WAL itself after its commit (walsync.go).
	return "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_txlock=immediate"
}

// sqliteDamage maps SQLite's "not a database" and "corrupt" answers to
// CodeStateDamaged; anything else is returned as it is.
func sqliteDamage(path string, err error) error {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		switch coded.Code() & 0xff {
		case 26: // SQLITE_NOTADB
			return damagedState(path, "is not a SQLite database")
		case 11: // SQLITE_CORRUPT
			return damagedState(path, "is corrupt")
		}
	}
	return err
}
