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

// syncLevel sets the synchronous level of conn, the journal's one
// connection, for the transaction about to run on it: NORMAL for a deferred
// one, FULL for any other. The level is switched only when it changes, so
// a run's deferred transitions in a row pay no PRAGMA, and neither do FULL
// ones in a row; the connection left at NORMAL is remembered by identity,
// so a replacement connection (opened at FULL by the DSN) is never
// mistaken for it. A connection whose level cannot be set back to FULL is
// dropped from the pool rather than given back: it would weaken every
// later commit.
func (j *Journal) syncLevel(ctx context.Context, conn *sql.Conn, normal bool) error {
	var dc any
	if err := conn.Raw(func(c any) error { dc = c; return nil }); err != nil {
		return fmt.Errorf("state connection: %w", err)
	}
	switch isNormal := dc == j.atNormal; {
	case normal && !isNormal:
		// Remembered before the PRAGMA runs: a failure part way leaves
		// the level unknown, and the next FULL transaction sets it again.
		j.atNormal = dc
		if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
			return fmt.Errorf("defer state sync: %w", err)
		}
	case !normal && isNormal:
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			j.atNormal = nil
			return fmt.Errorf("restore state sync: %w", err)
		}
		j.atNormal = nil
	}
	return nil
}
