package journal

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
)

type deferredKey struct{}

// Deferred marks a context whose transitions the journal commits without
// waiting for the disk (SQLite synchronous=NORMAL in WAL mode): each is
// written to the WAL whole, so a process that dies loses none of them,
// but only the next transition committed under synchronous=FULL (the
// run's seal or pause) makes them durable against a power cut, with one
// fsync of the WAL for all of them. A cut before that leaves a consistent
// earlier prefix (WAL frames are checksummed). The kernel defers only the
// transitions of a run that has no effect, which an operator can run
// again; a seal, a pause, a stop and a person's decision are always FULL.
func Deferred(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferredKey{}, true)
}

// undeferred is ctx with any deferral lifted: the transitions a host or
// person relies on (seal, pause, stop, decisions) wait for the disk.
func undeferred(ctx context.Context) context.Context {
	if deferred(ctx) {
		return context.WithValue(ctx, deferredKey{}, false)
	}
	return ctx
}

func deferred(ctx context.Context) bool {
	d, _ := ctx.Value(deferredKey{}).(bool)
	return d
}

// deferredTx runs fn in one transaction committed under
// synchronous=NORMAL on the journal's one connection, restored to FULL
// before the connection is given back.
func (j *Journal) deferredTx(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	conn, err := j.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("state connection: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return fmt.Errorf("defer state sync: %w", err)
	}
	defer func() {
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`); rerr != nil {
			// A connection left at NORMAL would weaken every later commit:
			// drop it from the pool rather than give it back.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			if err == nil {
				err = fmt.Errorf("restore state sync: %w", rerr)
			}
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin state transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit state transaction: %w", err)
	}
	return nil
}
