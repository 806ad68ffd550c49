package sqlite

import (
	"context"
	"time"

	"github.com/runxhq/runx/sdk/store/driver"
)

// Append appends one event in one BEGIN IMMEDIATE transaction.
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
	// Checked first: a select with both cases ready picks one at random.
	if err := ctx.Err(); err != nil {
		return driver.AppendResult{}, driver.NewScrubber().Failure(Provider, "append", driver.CommitNotSent, err)
	}
	select {
	case d.writeMu <- struct{}{}:
	case <-ctx.Done():
		return driver.AppendResult{}, driver.NewScrubber().Failure(Provider, "append", driver.CommitNotSent, ctx.Err())
	}
	defer func() { <-d.writeMu }()

	// Once begun, the transaction runs detached from the caller's
	// cancellation: an effect in flight runs to its end and reports what
	// happened. It is local and bounded by the busy timeout, and a context
	// that cannot be done spares SQLite's interrupt machinery per statement.
	wctx := context.WithoutCancel(ctx)
	if _, err := d.write.ExecContext(wctx, `BEGIN IMMEDIATE`); err != nil {
		return driver.AppendResult{}, driver.NewScrubber().Failure(Provider, "begin", driver.CommitNotSent, err)
	}
	res, committing, err := d.appendInTx(wctx, p)
	if err == nil && committing {
		if _, cerr := d.write.ExecContext(wctx, `COMMIT`); cerr != nil {
			d.write.ExecContext(wctx, `ROLLBACK`)
			return d.proveCommit(wctx, p, cerr)
		}
		return res, nil
	}
	// Refusals and replays wrote nothing; failures are rolled back whole.
	d.write.ExecContext(wctx, `ROLLBACK`)
	return res, err
}

// appendInTx decides the append inside the transaction. committing reports
// whether it wrote and so needs a COMMIT.
func (d *Driver) appendInTx(ctx context.Context, p *driver.PreparedAppend) (driver.AppendResult, bool, error) {
	st, err := d.appendState(ctx, p)
	if err != nil {
		return driver.AppendResult{}, false, d.rolledBack("append", err)
	}
	// The key is checked before the version: a retry of a committed append
	// carries the version it was made against, which is stale by now.
	if st.committed != nil {
		c := st.committed
		if c.digest != p.EventDigest {
			return driver.AppendResult{}, false, driver.IdempotencyConflict(st.version)
		}
		return p.Result(Provider, c.version, c.projection, time.UnixMilli(c.at).UTC(), true), false, nil
	}
	if p.ExpectedVersion != nil && *p.ExpectedVersion != st.version {
		return driver.AppendResult{}, false, driver.VersionConflict(*p.ExpectedVersion, st.version)
	}
	next := st.version + 1
	nextProjection, err := driver.NextProjection(st.projection, p.EventDigest)
	if err != nil {
		return driver.AppendResult{}, false, err
	}
	at := driver.CommitTime(d.now())
	s := p.Stream
	if _, err := d.wstmt.insertEvent.ExecContext(ctx, s.Source, s.Resource.Name, s.Key, next, p.IdempotencyKey,
		p.EventType, p.EventDigest, nextProjection, at.UnixMilli(), string(p.Event)); err != nil {
		return driver.AppendResult{}, false, d.rolledBack("append", err)
	}
	return p.Result(Provider, next, nextProjection, at, false), true, nil
}

type committedEvent struct {
	version    int64
	digest     string
	projection string
	at         int64
}

type appendState struct {
	version    int64
	projection string
	committed  *committedEvent // under the request's idempotency key
}

func (d *Driver) appendState(ctx context.Context, p *driver.PreparedAppend) (appendState, error) {
	st := appendState{projection: driver.GenesisProjection}
	s := p.Stream
	rows, err := d.wstmt.state.QueryContext(ctx, s.Source, s.Resource.Name, s.Key, p.IdempotencyKey)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var tag int
		var c committedEvent
		if err := rows.Scan(&tag, &c.version, &c.digest, &c.projection, &c.at); err != nil {
			return st, err
		}
		if tag == 0 {
			st.version, st.projection = c.version, c.projection
		} else {
			st.committed = &c
		}
	}
	return st, rows.Err()
}

// proveCommit settles a failed COMMIT by reading the key back. SQLite rolls a
// failed commit back, but a WAL commit whose sync failed may still surface on
// recovery, so absence is not proof: only a found key is.
func (d *Driver) proveCommit(ctx context.Context, p *driver.PreparedAppend, cause error) (driver.AppendResult, error) {
	s := p.Stream
	var committed, committedAt int64
	var digest, projection string
	err := d.wstmt.byKey.QueryRowContext(ctx, s.Source, s.Resource.Name, s.Key, p.IdempotencyKey).
		Scan(&committed, &digest, &projection, &committedAt)
	if err == nil && digest == p.EventDigest {
		return p.Result(Provider, committed, projection, time.UnixMilli(committedAt).UTC(), false), nil
	}
	return driver.AppendResult{}, driver.NewScrubber().Failure(Provider, "commit", driver.CommitUnknown, cause)
}

// rolledBack is a failure inside the transaction, which the caller rolls
// back: nothing was committed.
func (d *Driver) rolledBack(stage string, err error) error {
	return driver.NewScrubber().Failure(Provider, stage, driver.CommitNotCommitted, err)
}
