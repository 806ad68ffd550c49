package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	_ "modernc.org/sqlite" // the embedded, cgo-free SQLite driver
)

// Journal is an open state.sqlite.
type Journal struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt // the hot statements, prepared at Open (stmts.go)
	wal   walSync              // the WAL's sync after each durable commit (walsync.go)
	dir   string
	clock func() time.Time
	// Scrub is applied to every JSON document written (outputs, errors,
	// payloads, decisions, envelopes, events): the kernel sets its taint
	// set's ScrubJSON, so state.sqlite never holds a delivered credential.
	// Nil writes documents as they are.
	Scrub func([]byte) []byte

	files *fileLog // the receipt store whose files each commit logs (filelog.go)
	locks runLocks // the runs this journal drives (driverlock_*.go)
}

// text is a JSON document as it is stored.
func (j *Journal) text(doc []byte) string {
	if j.Scrub != nil {
		doc = j.Scrub(doc)
	}
	return string(doc)
}

// Open opens (creating if needed) the run records under projectDir.
func Open(projectDir string, clock func() time.Time) (*Journal, error) {
	if err := os.MkdirAll(projectDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", projectDir, err)
	}
	path := filepath.Join(projectDir, "state.sqlite")
	if err := prepareStateFile(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", stateDSN(path))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	j := &Journal{db: db, dir: projectDir, clock: clock, wal: walSync{path: path + "-wal"}}
	if err := requireWAL(db, path); err != nil {
		db.Close()
		return nil, sqliteDamage(path, err)
	}
	if err := j.migrate(); err != nil {
		db.Close()
		return nil, sqliteDamage(path, err)
	}
	if err := j.prepare(); err != nil {
		db.Close()
		return nil, fmt.Errorf("prepare state statements: %w", err)
	}
	return j, nil
}

func (j *Journal) migrate() error {
	var v int
	if err := j.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read state schema version: %w", err)
	}
	if v > schemaVersion {
		return contract.Errorf(errcode.StateSchemaNewer, "%s was written by a newer runx (schema %d; this runx reads %d)", filepath.Join(j.dir, "state.sqlite"), v, schemaVersion)
	}
	if _, err := j.db.Exec(schema); err != nil {
		return fmt.Errorf("create state schema: %w", err)
	}
	_, err := j.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion))
	return err
}

// Close closes the database.
func (j *Journal) Close() error {
	j.locks.close()
	err := j.db.Close()
	j.wal.close()
	return err
}

// Dir is the project directory the journal lives in.
func (j *Journal) Dir() string { return j.dir }

func (j *Journal) now() string { return j.clock().UTC().Format(time.RFC3339Nano) }

// tx runs fn in one IMMEDIATE transaction: one recorded transition, made
// durable (the WAL synced) before tx returns unless ctx is Deferred
// (deferred.go). Once a sync failed every transaction is refused.
func (j *Journal) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := j.wal.refused(); err != nil {
		return err
	}
	conn, err := j.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("state connection: %w", err)
	}
	// The WAL is synced before the connection is given back: while it is
	// held, the WAL at its path is the one this commit wrote (walsync.go).
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin state transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	logged, err := j.ReceiptLog().logFiles(ctx, tx)
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit state transaction: %w", err)
	}
	if !deferred(ctx) {
		// Committed and visible, but durable only once this returns nil;
		// on failure the logged files stay the store's to log again.
		if err := j.wal.sync(); err != nil {
			return err
		}
	}
	if len(logged) > 0 {
		j.files.src.Logged(logged)
	}
	return nil
}

// ErrRunNotFound is wrapped by lookups of a run the journal does not hold.
var ErrRunNotFound = errors.New("run not found")

func notFound(runID string) error {
	return &contract.Error{Code: errcode.RunNotFound, Message: "no run " + runID + " in this project's run records", Err: ErrRunNotFound}
}

func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
