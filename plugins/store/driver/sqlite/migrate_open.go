package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// How a migration opens files. Every connection names its file as an SQLite
// URI, so SQLite's own parameters apply: mode=ro can neither write nor
// create a file, and immutable=1 also takes no lock and writes no side file.

// fileURI names an absolute path as an SQLite URI; the path is escaped, so a
// '?', '#' or '%' in it stays part of the name.
func fileURI(path, params string) string {
	u := url.URL{Scheme: "file", Path: path, RawQuery: params}
	return u.String()
}

// openOne opens a pool of exactly one connection, so every statement sees
// the same connection state (its locks, its read transaction).
func openOne(ctx context.Context, dsn string) (*sql.DB, *sql.Conn, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, conn, nil
}

// openReadOnly opens a file that must not change. A file with no WAL and no
// rollback journal beside it is wholly in its main file, so it is opened
// immutable: nothing, not even a side file, is written. Otherwise it is
// opened read-only, which reads the WAL as any reader does.
func openReadOnly(ctx context.Context, path string) (*sql.DB, *sql.Conn, error) {
	params := "mode=ro"
	if !exists(path+"-wal") && !exists(path+"-journal") {
		params += "&immutable=1"
	}
	return openOne(ctx, fileURI(path, params))
}

// exclusiveConn is a connection holding a database alone: SQLite's
// exclusive locking mode keeps the lock its first transaction takes until
// the connection closes, so no other connection can read or write the file
// while the migration reads, backs it up and rebuilds it.
type exclusiveConn struct {
	db   *sql.DB
	conn *sql.Conn
}

func lockExclusive(ctx context.Context, path string, busy time.Duration) (*exclusiveConn, error) {
	db, conn, err := openOne(ctx, fileURI(path, "mode=rw&_busy_timeout="+strconv.FormatInt(busy.Milliseconds(), 10)))
	if err != nil {
		return nil, openFailure("open", err)
	}
	x := &exclusiveConn{db: db, conn: conn}
	for _, stmt := range []string{`PRAGMA locking_mode = EXCLUSIVE`, `BEGIN EXCLUSIVE`, `COMMIT`} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			x.close()
			if isBusy(err) {
				return nil, driver.Errorf(errcode.DataMigrationBusy,
					"another process has the database open; stop what uses it (a runx before this version, a sqlite3 shell) and migrate again")
			}
			return nil, openFailure("lock", err)
		}
	}
	return x, nil
}

// close releases the lock. A WAL-mode file's last connection checkpoints
// and removes its WAL as it closes.
func (x *exclusiveConn) close() error {
	if x.conn == nil {
		return nil
	}
	err := errors.Join(x.conn.Close(), x.db.Close())
	x.conn, x.db = nil, nil
	return err
}

// sqliteCode is the primary result code of an SQLite error, or 0.
func sqliteCode(err error) int {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		return coded.Code() & 0xff
	}
	return 0
}

func isBusy(err error) bool {
	c := sqliteCode(err)
	return c == 5 || c == 6 // SQLITE_BUSY, SQLITE_LOCKED
}

// openFailure reports a failure to open or lock the database: an
// SQLite-level "not a database" is an unrecognized file, anything else a
// failure that changed nothing.
func openFailure(stage string, err error) error {
	if sqliteCode(err) == 26 { // SQLITE_NOTADB
		return driver.Errorf(errcode.StoreSchemaUnrecognized,
			"the file is not an SQLite database; it was left untouched and no backup was made")
	}
	return migrationFailure(stage, err)
}

// migrationFailure is an I/O failure before the migrated file is renamed
// into place: the database is as it was. The cause is SQLite's or the
// operating system's text, which holds no event payload; it is truncated.
func migrationFailure(stage string, err error) error {
	return driver.Errorf(errcode.ProviderUnavailable,
		"the migration failed (%s) and the database was left as it was: %s", stage, driver.NewScrubber().Scrub(err.Error())).
		WithEvidence(driver.EvidenceStage, "migrate_"+stage).WithCause(err)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
