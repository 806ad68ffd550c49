package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pool is pgxpool with the driver's named statements prepared on every
// connection as it opens. pgxpool destroys, rather than reuses, a connection
// released closed or inside a transaction, so a network error never hands
// the next caller a broken connection.
type pool struct{ p *pgxpool.Pool }

func newPool(ctx context.Context, cfg *pgx.ConnConfig, size int, prepare func(context.Context, *pgx.Conn) error) (*pool, error) {
	// pgxpool's Config must come from ParseConfig; the connection settings
	// are then the driver's own, password included, never re-read from a
	// string that could carry one.
	pcfg, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, fmt.Errorf("pgxpool config: %w", err)
	}
	pcfg.ConnConfig = cfg
	pcfg.MaxConns = int32(size)
	pcfg.AfterConnect = prepare
	p, err := pgxpool.NewWithConfig(context.WithoutCancel(ctx), pcfg)
	if err != nil {
		return nil, err
	}
	return &pool{p: p}, nil
}

// acquire waits for a connection (honouring ctx). Nothing has been sent on
// the caller's behalf when it fails.
func (p *pool) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	return p.p.Acquire(ctx)
}

// close closes the pool; connections in use are closed as they are released.
func (p *pool) close() { p.p.Close() }

// with runs fn on a pooled connection. A failure that pgx marks safe to retry
// (nothing was sent, typically a connection the server dropped while idle)
// is retried once on a fresh connection.
func (p *pool) with(ctx context.Context, fn func(conn *pgx.Conn) error) error {
	for attempt := 0; ; attempt++ {
		conn, err := p.acquire(ctx)
		if err != nil {
			return err
		}
		err = fn(conn.Conn())
		conn.Release()
		if err == nil || attempt > 0 || !pgconn.SafeToRetry(err) {
			return err
		}
	}
}
