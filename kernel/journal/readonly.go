package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// OpenReadOnly opens the run records under projectDir to read them only, as
// shell completion does: it creates nothing (no directory, no state file, no
// schema), takes no lock, and every write through it is refused by SQLite
// (query_only). Records that do not exist yet are fs.ErrNotExist; records
// another runx is writing are read as of their last commit.
func OpenReadOnly(projectDir string) (*Journal, error) {
	path := filepath.Join(projectDir, "state.sqlite")
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, contract.Errorf(errcode.StateUnreadable, "%s is not a regular file", path)
	}
	// With no WAL beside it every commit is in the file itself: it is read
	// as immutable, so SQLite makes no -wal or -shm file either. With one
	// (a runx is using the records now) the WAL is read too, through the
	// files that runx keeps.
	mode := "mode=ro"
	if _, err := os.Lstat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		mode += "&immutable=1"
	}
	dsn := "file:" + path + "?" + mode + "&_pragma=query_only(1)&_pragma=busy_timeout(1000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, sqliteDamage(path, err)
	}
	if v != schemaVersion {
		db.Close()
		return nil, contract.Errorf(errcode.StateSchemaNewer, "%s holds schema %d; this runx reads %d", path, v, schemaVersion)
	}
	return &Journal{db: db, dir: projectDir, clock: time.Now, wal: walSync{path: path + "-wal"}}, nil
}
