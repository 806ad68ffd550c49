package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pool is a bounded pool of connections, each with the driver's named
// statements prepared as it opens.
//
// It stands in for pgxpool, whose dependency (jackc/puddle) the module does
// not carry; the driver needs only acquire, release and close, so a channel
// of slots and a stack of idle connections is the whole of it.
type pool struct {
	// base is the Open context without its cancellation: closing a dropped
	// connection must not depend on whichever call happened to drop it.
	base    context.Context
	cfg     *pgx.ConnConfig
	prepare func(ctx context.Context, conn *pgx.Conn) error
	slots   chan struct{}

	mu     sync.Mutex
	idle   []*pgx.Conn
	closed bool
}

var errPoolClosed = errors.New("the connection pool is closed")

const closeTimeout = 2 * time.Second

func newPool(ctx context.Context, cfg *pgx.ConnConfig, size int, prepare func(context.Context, *pgx.Conn) error) *pool {
	return &pool{base: context.WithoutCancel(ctx), cfg: cfg, prepare: prepare, slots: make(chan struct{}, size)}
}

func (p *pool) closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(p.base, closeTimeout)
	defer cancel()
	conn.Close(ctx)
}

// acquire waits for a slot (honouring ctx) and returns an idle connection or
// a new one. Nothing has been sent on the caller's behalf when it fails.
func (p *pool) acquire(ctx context.Context) (*pgx.Conn, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return nil, errPoolClosed
	}
	if n := len(p.idle); n > 0 {
		conn := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return conn, nil
	}
	p.mu.Unlock()
	conn, err := pgx.ConnectConfig(ctx, p.cfg.Copy())
	if err == nil {
		if err = p.prepare(ctx, conn); err != nil {
			p.closeConn(conn)
		}
	}
	if err != nil {
		<-p.slots
		return nil, err
	}
	return conn, nil
}

// release returns a connection; a broken one (pgx closes a connection on a
// network error) is dropped so that the next caller connects afresh.
func (p *pool) release(conn *pgx.Conn) {
	defer func() { <-p.slots }()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || conn.IsClosed() || conn.PgConn().TxStatus() != 'I' {
		p.closeConn(conn)
		return
	}
	p.idle = append(p.idle, conn)
}

// close closes the idle connections; connections in use are closed as they
// are released.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, conn := range p.idle {
		p.closeConn(conn)
	}
	p.idle = nil
}

// with runs fn on a pooled connection. A failure that pgx marks safe to retry
// (nothing was sent, typically a connection the server dropped while idle)
// is retried once on a fresh connection.
func (p *pool) with(ctx context.Context, fn func(conn *pgx.Conn) error) error {
	for attempt := 0; ; attempt++ {
		conn, err := p.acquire(ctx)
		if err != nil {
			return err
		}
		err = fn(conn)
		p.release(conn)
		if err == nil || attempt > 0 || !safeToRetry(err) {
			return err
		}
	}
}

// safeToRetry reports a failure that provably sent nothing.
func safeToRetry(err error) bool {
	return pgconn.SafeToRetry(err)
}
