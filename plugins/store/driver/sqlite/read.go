package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/runxhq/runx/sdk/store/driver"
)

// Read reads the head and one page in one read transaction, so in one
// snapshot (WAL readers see the database as of their first read).
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
		return driver.ReadResult{}, d.unavailable("read", err)
	}
	tx, err := d.readDB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return driver.ReadResult{}, d.unavailable("read", err)
	}
	defer tx.Rollback()
	s := plan.Stream
	version, projection := int64(0), ""
	var ignoredType, ignoredDigest string
	var ignoredAt int64
	err = tx.StmtContext(ctx, d.rstmt.head).QueryRowContext(ctx, s.Source, s.Resource.Name, s.Key).
		Scan(&version, &ignoredType, &ignoredDigest, &projection, &ignoredAt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return driver.ReadResult{}, d.unavailable("read", err)
	}
	var rows *sql.Rows
	if plan.AfterVersion != nil {
		rows, err = tx.StmtContext(ctx, d.rstmt.forward).QueryContext(ctx, s.Source, s.Resource.Name, s.Key, *plan.AfterVersion, plan.Limit)
	} else {
		rows, err = tx.StmtContext(ctx, d.rstmt.tail).QueryContext(ctx, s.Source, s.Resource.Name, s.Key, plan.Limit)
	}
	if err != nil {
		return driver.ReadResult{}, d.unavailable("read", err)
	}
	defer rows.Close()
	events := make([]driver.Event, 0, plan.Limit)
	for rows.Next() {
		var e driver.Event
		var at int64
		var data []byte
		if err := rows.Scan(&e.Version, &e.IdempotencyKey, &e.Type, &e.Digest, &e.ProjectionDigest, &at, &data); err != nil {
			return driver.ReadResult{}, d.unavailable("read", err)
		}
		e.CommittedAt, e.Data = time.UnixMilli(at).UTC(), data
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return driver.ReadResult{}, d.unavailable("read", err)
	}
	if plan.AfterVersion == nil {
		slices.Reverse(events) // the tail was read newest first
	}
	return plan.Finish(Provider, version, projection, events)
}

// InspectKey reads a stream's head.
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
		return driver.Head{}, d.unavailable("inspect", err)
	}
	h := driver.EmptyHead(Provider, req.Stream)
	var at int64
	err = d.rstmt.head.QueryRowContext(ctx, req.Source, req.Resource.Name, req.Key).
		Scan(&h.Version, &h.LastEventType, &h.LastEventDigest, &h.ProjectionDigest, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return h, nil
	case err != nil:
		return driver.Head{}, d.unavailable("inspect", err)
	}
	h.LastEventRef = driver.EventRef(req.Resource.Name, req.Key, h.Version)
	h.CommittedAt = time.UnixMilli(at).UTC()
	return h, nil
}

// ListKeys pages through a resource's heads in key order.
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
		return driver.ListResult{}, d.unavailable("list", err)
	}
	rows, err := d.rstmt.list.QueryContext(ctx, plan.Source, plan.Resource.Name, plan.AfterKey, plan.Limit+1)
	if err != nil {
		return driver.ListResult{}, d.unavailable("list", err)
	}
	defer rows.Close()
	var heads []driver.Head
	for rows.Next() {
		var h driver.Head
		var at int64
		if err := rows.Scan(&h.Key, &h.Version, &h.LastEventType, &h.LastEventDigest, &h.ProjectionDigest, &at); err != nil {
			return driver.ListResult{}, d.unavailable("list", err)
		}
		h.CommittedAt = time.UnixMilli(at).UTC()
		heads = append(heads, h)
	}
	if err := rows.Err(); err != nil {
		return driver.ListResult{}, d.unavailable("list", err)
	}
	return plan.Finish(Provider, heads)
}
