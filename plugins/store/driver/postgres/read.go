package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/runxhq/runx/sdk/store/driver"
)

// Read sends the head query and the page query in one round trip (a pgx
// batch). Each runs in its own snapshot, the page's no older than the
// head's; that is consistent because a stream only grows at its end: every
// event up to the head read first is final, and an event appended between
// the two is cut off.
func (d *Driver) Read(ctx context.Context, req driver.ReadRequest) (driver.ReadResult, error) {
	plan, err := driver.PrepareRead(req, d.limits)
	if err != nil {
		return driver.ReadResult{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.ReadResult{}, err
	}
	defer leave()
	if err := ctx.Err(); err != nil {
		return driver.ReadResult{}, d.failure("read", "", err)
	}
	s := plan.Stream
	var (
		version    int64
		projection string
		events     []driver.Event
	)
	err = d.pool.with(ctx, func(conn *pgx.Conn) error {
		version, projection, events = 0, "", make([]driver.Event, 0, plan.Limit)
		batch := &pgx.Batch{}
		batch.Queue(stmtHead, s.Source, s.Resource.Name, s.Key)
		if plan.AfterVersion != nil {
			batch.Queue(stmtPageFw, s.Source, s.Resource.Name, s.Key, *plan.AfterVersion, plan.Limit)
		} else {
			batch.Queue(stmtPageTl, s.Source, s.Resource.Name, s.Key, plan.Limit)
		}
		results := conn.SendBatch(ctx, batch)
		defer results.Close()
		var ignoredType, ignoredDigest string
		var ignoredAt time.Time
		err := results.QueryRow().Scan(&version, &ignoredType, &ignoredDigest, &projection, &ignoredAt)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		rows, err := results.Query()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e driver.Event
			var at time.Time
			var data []byte
			if err := rows.Scan(&e.Version, &e.IdempotencyKey, &e.Type, &e.Digest, &e.ProjectionDigest, &at, &data); err != nil {
				return err
			}
			if e.Version > version {
				continue // appended after the head was read
			}
			e.CommittedAt, e.Data = at.UTC(), data
			events = append(events, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return results.Close()
	})
	if err != nil {
		return driver.ReadResult{}, d.failure("read", "", err)
	}
	if plan.AfterVersion == nil {
		slices.Reverse(events) // the tail was read newest first
	}
	return plan.Finish(Provider, version, projection, events)
}

// InspectKey reads a stream's head row.
func (d *Driver) InspectKey(ctx context.Context, req driver.InspectRequest) (driver.Head, error) {
	if err := driver.PrepareInspect(req); err != nil {
		return driver.Head{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.Head{}, err
	}
	defer leave()
	if err := ctx.Err(); err != nil {
		return driver.Head{}, d.failure("inspect", "", err)
	}
	h := driver.EmptyHead(Provider, req.Stream)
	var at time.Time
	err = d.pool.with(ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, stmtHead, req.Source, req.Resource.Name, req.Key).
			Scan(&h.Version, &h.LastEventType, &h.LastEventDigest, &h.ProjectionDigest, &at)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return h, nil
	case err != nil:
		return driver.Head{}, d.failure("inspect", "", err)
	}
	h.LastEventRef = driver.EventRef(req.Resource.Name, req.Key, h.Version)
	h.CommittedAt = at.UTC()
	return h, nil
}

// ListKeys pages through a resource's head rows in key order.
func (d *Driver) ListKeys(ctx context.Context, req driver.ListRequest) (driver.ListResult, error) {
	plan, err := driver.PrepareList(req, d.limits)
	if err != nil {
		return driver.ListResult{}, err
	}
	leave, err := d.enter()
	if err != nil {
		return driver.ListResult{}, err
	}
	defer leave()
	if err := ctx.Err(); err != nil {
		return driver.ListResult{}, d.failure("list", "", err)
	}
	var heads []driver.Head
	err = d.pool.with(ctx, func(conn *pgx.Conn) error {
		heads = nil
		rows, err := conn.Query(ctx, stmtList, plan.Source, plan.Resource.Name, plan.AfterKey, plan.Limit+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h driver.Head
			var at time.Time
			if err := rows.Scan(&h.Key, &h.Version, &h.LastEventType, &h.LastEventDigest, &h.ProjectionDigest, &at); err != nil {
				return err
			}
			h.CommittedAt = at.UTC()
			heads = append(heads, h)
		}
		return rows.Err()
	})
	if err != nil {
		return driver.ListResult{}, d.failure("list", "", err)
	}
	return plan.Finish(Provider, heads)
}
