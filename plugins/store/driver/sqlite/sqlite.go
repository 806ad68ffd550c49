package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// Provider is the provider name in result packets.
const Provider = "sqlite"

// Synchronous is SQLite's durability setting for commits in WAL mode.
type Synchronous string

const (
	// SynchronousFull syncs the WAL at every commit: a committed append
	// survives power loss. The default.
	SynchronousFull Synchronous = "FULL"
	// SynchronousNormal syncs only at checkpoints: a committed append
	// survives a process crash but the last ones may roll back on power
	// loss. For scratch stores and tests.
	SynchronousNormal Synchronous = "NORMAL"
)

// Config opens a store file.
type Config struct {
	// Path is the database file, as the caller resolved it (workspace
	// containment is the caller's job). Its directory is created if missing.
	Path string
	// Limits are the store's caps; zero means the defaults.
	Limits driver.Limits
	// Now is the clock commit times come from; nil means time.Now. runx test
	// passes a fixed clock so reads are reproducible.
	Now func() time.Time
	// Synchronous defaults to SynchronousFull.
	Synchronous Synchronous
	// ReadConns bounds concurrent readers (WAL readers never block the
	// writer); 0 means 4.
	ReadConns int
	// BusyTimeout bounds how long a write waits for another process's write
	// lock; 0 means 5s.
	BusyTimeout time.Duration
}

// Driver is the SQLite store. Writes go through one connection, serialized
// in-process, each append one BEGIN IMMEDIATE transaction; reads go through a
// pool of query-only connections.
type Driver struct {
	cfg    Config
	limits driver.Limits
	now    func() time.Time

	writeDB *sql.DB
	write   *sql.Conn
	wstmt   writeStatements
	writeMu chan struct{} // a one-slot semaphore: waiting honours ctx

	readDB *sql.DB
	rstmt  readStatements

	closeMu sync.RWMutex
	closed  bool
}

var _ driver.Driver = (*Driver)(nil)

// Open opens or creates the store at cfg.Path. A file holding a recognized
// legacy schema is refused with ErrStoreNeedsMigration, any other foreign file
// with ErrStoreSchemaUnrecognized; neither is modified.
func Open(ctx context.Context, cfg Config) (*Driver, error) {
	d := &Driver{cfg: cfg, now: cfg.Now, writeMu: make(chan struct{}, 1)}
	if err := d.configure(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o700); err != nil {
		return nil, driver.Errorf(errcode.InvalidConfig, "cannot create the store's directory: %v", err)
	}
	if err := d.claim(ctx); err != nil {
		return nil, err
	}
	if err := d.openPools(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *Driver) configure() error {
	if d.cfg.Path == "" || strings.ContainsAny(d.cfg.Path, "?#") || strings.HasPrefix(d.cfg.Path, "file:") || d.cfg.Path == ":memory:" {
		return driver.Errorf(errcode.InvalidConfig, "the store path must be a file path without '?' or '#'")
	}
	lim, err := d.cfg.Limits.Normalize()
	if err != nil {
		return err
	}
	d.limits = lim
	if d.now == nil {
		d.now = time.Now
	}
	switch d.cfg.Synchronous {
	case "":
		d.cfg.Synchronous = SynchronousFull
	case SynchronousFull, SynchronousNormal:
	default:
		return driver.Errorf(errcode.InvalidConfig, "synchronous must be FULL or NORMAL")
	}
	if d.cfg.ReadConns <= 0 {
		d.cfg.ReadConns = 4
	}
	if d.cfg.BusyTimeout <= 0 {
		d.cfg.BusyTimeout = 5 * time.Second
	}
	return nil
}

// claim fingerprints the file and creates the schema in an empty one,
// trying again while another opener holds the file to claim it first: once
// it has, the file is current and the claim is a look.
func (d *Driver) claim(ctx context.Context) error {
	deadline := time.Now().Add(max(d.cfg.BusyTimeout, time.Second))
	for {
		err := d.claimOnce(ctx)
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// busy reports whether an error came from SQLite's locks (another
// connection holds the file), anywhere in its chain.
func busy(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		msg := e.Error()
		if strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "(5)") {
			return true
		}
	}
	return false
}

// claimOnce is one attempt at claim. It opens the file with no pragmas, so
// that a foreign database is only read.
func (d *Driver) claimOnce(ctx context.Context) error {
	db, err := sql.Open("sqlite", fmt.Sprintf("%s?_busy_timeout=%d", d.cfg.Path, d.cfg.BusyTimeout.Milliseconds()))
	if err != nil {
		return d.unavailable("open", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return d.unavailable("open", err)
	}
	defer conn.Close()
	// One read transaction, so the look is one snapshot: read statement by
	// statement, another opener's claim could land between them and the
	// file would look half made (seen with three drivers opening one new file).
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return d.unavailable("inspect", err)
	}
	state, err := Inspect(ctx, conn)
	if _, rerr := conn.ExecContext(ctx, `ROLLBACK`); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return d.unavailable("inspect", err)
	}
	switch {
	case state == StateCurrent:
		return nil
	case state.Legacy():
		return driver.Errorf(errcode.StoreNeedsMigration,
			"the store file holds a legacy runx event store (%s); migrate it out of band with `runx data migrate --database <path> --source <ref>`", state)
	case state != StateEmpty:
		return driver.Errorf(errcode.StoreSchemaUnrecognized,
			"the file is not a runx store and was left untouched; point the source at another database_path")
	}
	// WAL cannot be switched on inside a transaction; the file is empty, so
	// changing its header claims nothing that belongs to anyone else.
	if _, err := conn.ExecContext(ctx, `PRAGMA journal_mode = WAL`); err != nil {
		return d.unavailable("schema", err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return d.unavailable("schema", err)
	}
	// Another process may have claimed the file between the look and the lock.
	if state, err = Inspect(ctx, conn); err != nil || state != StateEmpty {
		conn.ExecContext(ctx, `ROLLBACK`)
		if err != nil {
			return d.unavailable("schema", err)
		}
		if state == StateCurrent {
			return nil
		}
		return driver.Errorf(errcode.StoreSchemaUnrecognized, "another program wrote the file while the store was claiming it; it was left untouched")
	}
	for _, stmt := range createSchema {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			conn.ExecContext(ctx, `ROLLBACK`)
			return d.unavailable("schema", err)
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		conn.ExecContext(ctx, `ROLLBACK`)
		return d.unavailable("schema", err)
	}
	return nil
}

func (d *Driver) openPools(ctx context.Context) error {
	base := fmt.Sprintf("%s?_busy_timeout=%d&_journal_mode=WAL&_synchronous=%s",
		d.cfg.Path, d.cfg.BusyTimeout.Milliseconds(), d.cfg.Synchronous)
	var err error
	if d.writeDB, err = sql.Open("sqlite", base); err != nil {
		return d.unavailable("open", err)
	}
	d.writeDB.SetMaxOpenConns(1)
	if d.write, err = d.writeDB.Conn(ctx); err != nil {
		return d.unavailable("open", err)
	}
	if d.wstmt, err = prepareWrite(ctx, d.write); err != nil {
		return d.unavailable("prepare", err)
	}
	if d.readDB, err = sql.Open("sqlite", base+"&_query_only=1"); err != nil {
		return d.unavailable("open", err)
	}
	d.readDB.SetMaxOpenConns(d.cfg.ReadConns)
	d.readDB.SetMaxIdleConns(d.cfg.ReadConns)
	if d.rstmt, err = prepareRead(ctx, d.readDB); err != nil {
		return d.unavailable("prepare", err)
	}
	return nil
}

// Provider reports "sqlite".
func (d *Driver) Provider() string { return Provider }

// Close closes the store's connections. It waits for calls in progress.
func (d *Driver) Close() error {
	d.closeMu.Lock()
	defer d.closeMu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var errs []error
	d.wstmt.close()
	d.rstmt.close()
	if d.write != nil {
		errs = append(errs, d.write.Close())
	}
	for _, db := range []*sql.DB{d.writeDB, d.readDB} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

// enter guards a call against a concurrent Close.
func (d *Driver) enter() (func(), error) {
	d.closeMu.RLock()
	if d.closed {
		d.closeMu.RUnlock()
		return nil, driver.Closed(Provider)
	}
	return d.closeMu.RUnlock, nil
}

func (d *Driver) unavailable(stage string, err error) error {
	return driver.NewScrubber().Failure(Provider, stage, "", err)
}
