package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/runxhq/runx/plugins/store/driver"
)

// Read reads one page and its head in one statement, so in one snapshot.
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
	s := plan.Stream
	var rows *sql.Rows
	if plan.AfterVersion != nil {
		rows, err = d.rstmt.forward.QueryContext(ctx, s.Source, s.Resource.Name, s.Key, *plan.AfterVersion, plan.Limit)
	} else {
		rows, err = d.rstmt.tail.QueryContext(ctx, s.Source, s.Resource.Name, s.Key, plan.Limit)
	}
	if err != nil {
		return driver.ReadResult{}, d.unavailable("read", err)
	}
	defer rows.Close()
	var (
		version    int64
		projection string
		events     = make([]driver.Event, 0, plan.Limit)
	)
	for rows.Next() {
		var (
			ev                       sql.NullInt64
			key, typ, digest, evProj sql.NullString
			at                       sql.NullInt64
			data                     []byte
		)
		if err := rows.Scan(&version, &projection, &ev, &key, &typ, &digest, &evProj, &at, &data); err != nil {
			return driver.ReadResult{}, d.unavailable("read", err)
		}
		if !ev.Valid {
			continue // the head row alone: no events after the cursor
		}
		events = append(events, driver.Event{
			Version: ev.Int64, Type: typ.String, Digest: digest.String, ProjectionDigest: evProj.String,
			IdempotencyKey: key.String, CommittedAt: time.UnixMilli(at.Int64).UTC(), Data: data,
		})
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
