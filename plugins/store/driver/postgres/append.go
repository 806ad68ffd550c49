package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// maxAttempts bounds retries of an append the server rolled back for a
// reason that a second try resolves: two first appends to a new stream
// colliding, a deadlock, a stale pooled connection.
const maxAttempts = 4

// proofTimeout bounds proving the outcome of an append whose answer was lost.
const proofTimeout = 15 * time.Second

var (
	errNotGone = errors.New("the backend that ran the append is still running")
	errRaced   = errors.New("the stream head was created concurrently")
)

// Append calls runx_store_append once: one round trip, one transaction.
func (d *Driver) Append(ctx context.Context, req driver.AppendRequest) (driver.AppendResult, error) {
	p, err := driver.PrepareAppend(req, d.limits)
	if err != nil {
		return driver.AppendResult{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.AppendResult{}, err
	}
	defer leave()
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return driver.AppendResult{}, d.failure("append", driver.CommitNotSent, err)
		}
		res, retry, err := d.appendOnce(ctx, p)
		if retry && attempt < maxAttempts {
			continue
		}
		return res, err
	}
}

func (d *Driver) appendOnce(ctx context.Context, p *driver.PreparedAppend) (res driver.AppendResult, retry bool, err error) {
	conn, err := d.pool.acquire(ctx)
	if err != nil {
		return res, false, d.failure("connect", driver.CommitNotSent, err)
	}
	defer conn.Release()
	pid := conn.Conn().PgConn().PID()
	// Once sent, the call runs detached from the caller's cancellation: an
	// effect in flight runs to its end and reports what happened, instead of
	// a cancel turning it into an ambiguous commit.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.cfg.CommitTimeout)
	defer cancel()

	s := p.Stream
	at := driver.CommitTime(d.now())
	var (
		outcome     string
		version     *int64
		projection  *string
		committedAt *time.Time
		current     int64
	)
	err = conn.QueryRow(wctx, stmtAppend, s.Source, s.Resource.Name, s.Key, p.ExpectedVersion, p.IdempotencyKey,
		p.EventType, p.EventDigest, string(p.Event), at).Scan(&outcome, &version, &projection, &committedAt, &current)
	if err != nil {
		return d.appendFailed(ctx, p, pid, err)
	}
	switch outcome {
	case "committed", "replayed":
		if version == nil || projection == nil || committedAt == nil {
			break
		}
		return p.Result(Provider, *version, *projection, committedAt.UTC(), outcome == "replayed"), false, nil
	case string(errcode.IdempotencyConflict):
		return res, false, driver.IdempotencyConflict(current)
	case string(errcode.VersionConflict):
		if p.ExpectedVersion == nil {
			// Only a head created concurrently can answer this without an
			// expected version; the routine retries that itself, so this is
			// a race it gave up on: try the call again.
			return res, true, d.failure("append", driver.CommitNotCommitted, errRaced)
		}
		return res, false, driver.VersionConflict(*p.ExpectedVersion, current)
	}
	return res, false, driver.Errorf(errcode.StoreCorrupt, "the append routine answered %q, which this driver does not know", outcome)
}

// appendFailed classifies a failed call by what it proves about the commit.
func (d *Driver) appendFailed(ctx context.Context, p *driver.PreparedAppend, pid uint32, err error) (driver.AppendResult, bool, error) {
	var pgErr *pgconn.PgError
	switch {
	case pgconn.SafeToRetry(err):
		// Nothing reached the server (a pooled connection that had died).
		return driver.AppendResult{}, true, d.failure("append", driver.CommitNotSent, err)
	case errors.As(err, &pgErr):
		// The server answered with an error: the transaction rolled back.
		retry := pgErr.Code == "23505" || pgErr.Code == "40P01" || pgErr.Code == "40001"
		return driver.AppendResult{}, retry, d.failure("append", driver.CommitNotCommitted, err)
	}
	res, err := d.prove(ctx, p, pid, err)
	return res, false, err
}

// prove settles an append whose answer was lost after it was sent. It ends
// the backend that ran it (pg_terminate_backend waits until it is gone), so
// that its transaction is over for good, then reads the key back: found is a
// commit, absent is proof of none. If the server cannot be reached to do
// this, the outcome is unknown and the append fails closed.
func (d *Driver) prove(ctx context.Context, p *driver.PreparedAppend, pid uint32, cause error) (driver.AppendResult, error) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), proofTimeout)
	defer cancel()
	unknown := d.failure("append", driver.CommitUnknown, cause)
	s := p.Stream
	var (
		gone               bool
		version, current   int64
		digest, projection string
		at                 time.Time
		readErr            error
	)
	err := d.pool.with(pctx, func(conn *pgx.Conn) error {
		if _, err := conn.Exec(pctx, stmtFence, pid); err != nil {
			return err
		}
		if err := conn.QueryRow(pctx, stmtGone, pid).Scan(&gone); err != nil || !gone {
			return errors.Join(err, errNotGone)
		}
		readErr = conn.QueryRow(pctx, stmtByKey, s.Source, s.Resource.Name, s.Key, p.IdempotencyKey).Scan(&version, &digest, &projection, &at)
		if readErr == nil && digest != p.EventDigest {
			if err := conn.QueryRow(pctx, stmtHead, s.Source, s.Resource.Name, s.Key).Scan(&current, new(string), new(string), new(string), new(time.Time)); err != nil {
				current = version
			}
		}
		if errors.Is(readErr, pgx.ErrNoRows) {
			return nil
		}
		return readErr
	})
	if err != nil {
		return driver.AppendResult{}, unknown
	}
	err = readErr
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return driver.AppendResult{}, d.failure("append", driver.CommitNotCommitted, cause)
	case err != nil:
		return driver.AppendResult{}, unknown
	case digest != p.EventDigest:
		// Another append took the key meanwhile; this event is not committed.
		return driver.AppendResult{}, driver.IdempotencyConflict(current)
	}
	return p.Result(Provider, version, projection, at.UTC(), false), nil
}
