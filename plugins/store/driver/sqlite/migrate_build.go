package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// buildResult is what the build wrote, as it computed it; verification must
// find the same in the file.
type buildResult struct {
	Content    contentSummary
	Assigned   int64 // events given the supplied source
	Redigested int64 // events whose legacy event_digest was not the digest of their canonical form
	Retyped    int64 // events whose legacy event_type was not the type the current definition derives
}

// legacyRowsQuery reads the legacy events in the order of the current
// primary key, each column checked for the type the current schema needs: a
// value of any other type reads as NULL and is refused by name. Expressions,
// not bare columns, so the SQLite driver never reinterprets a legacy column
// declared DATETIME as a time.
func legacyRowsQuery(s State) string {
	text := func(c string) string { return fmt.Sprintf("(CASE WHEN typeof(%[1]s) = 'text' THEN %[1]s END)", c) }
	return `SELECT src, assigned, ` + text("resource") + `, ` + text("aggregate_id") + `,
  (CASE WHEN typeof(version) = 'integer' THEN version END), ` + text("idempotency_key") + `,
  coalesce(CAST(event_type AS TEXT), ''), coalesce(CAST(event_digest AS TEXT), ''),
  ` + text("event_json") + `, ` + text("committed_at") + `
FROM (SELECT *, ` + legacySourceExpr(s) + ` AS src, ` + legacyUnscopedExpr(s) + ` AS assigned FROM runx_events)
ORDER BY src COLLATE BINARY, resource COLLATE BINARY, aggregate_id COLLATE BINARY, version`
}

type legacyEvent struct {
	source, resource, key, idempotencyKey, eventJSON, committedAt sql.NullString
	version                                                       sql.NullInt64
	assigned                                                      bool
	eventType, eventDigest                                        string
}

// build writes the current schema and every legacy event into a new file at
// tmp, in one transaction: each event as the current driver would have
// stored it (validated, canonical, digested and typed by the driver's own
// PrepareAppend), with the projection digest rebuilt from the stream's
// ordered events and the commit time converted to UTC milliseconds.
func build(ctx context.Context, orig Queryer, s State, source, tmp string, lim driver.Limits) (buildResult, error) {
	var res buildResult
	// The file is new and is thrown away on any failure, so it is written
	// without a durable journal; it is synced once, whole, after the commit.
	db, conn, err := openOne(ctx, fileURI(tmp, "mode=rwc&_journal_mode=MEMORY&_synchronous=OFF"))
	if err != nil {
		return res, migrationFailure("create", err)
	}
	defer db.Close()
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return res, migrationFailure("create", err)
	}
	defer tx.Rollback()
	for _, stmt := range createSchema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return res, migrationFailure("create", err)
		}
	}
	insert, err := tx.PrepareContext(ctx, stmtInsertEvent)
	if err != nil {
		return res, migrationFailure("create", err)
	}
	defer insert.Close()
	rows, err := orig.QueryContext(ctx, legacyRowsQuery(s), source)
	if err != nil {
		return res, migrationFailure("read", err)
	}
	defer rows.Close()
	h := newContentHasher()
	projection := ""
	var last driver.StreamID
	for rows.Next() {
		var r legacyEvent
		if err := rows.Scan(&r.source, &r.assigned, &r.resource, &r.key, &r.version, &r.idempotencyKey,
			&r.eventType, &r.eventDigest, &r.eventJSON, &r.committedAt); err != nil {
			return res, migrationFailure("read", err)
		}
		e, p, err := convert(r, lim)
		if err != nil {
			return res, err
		}
		if e.stream() != last || projection == "" {
			last, projection = e.stream(), driver.GenesisProjection
		}
		if e.Projection, err = driver.NextProjection(projection, e.Digest); err != nil {
			return res, err
		}
		projection = e.Projection
		// The hasher holds the sequence: a gap, a duplicate version, or two
		// streams merged by the supplied source are refused here.
		if err := h.add(e); err != nil {
			return res, inconsistent(err)
		}
		if _, err := insert.ExecContext(ctx, e.Source, e.Resource, e.Key, e.Version, e.IdempotencyKey,
			e.Type, e.Digest, e.Projection, e.CommittedAtMillis, string(p.Event)); err != nil {
			if sqliteCode(err) == 19 { // SQLITE_CONSTRAINT: the idempotency index
				return res, driver.Errorf(errcode.DataMigrationLegacyInconsistent,
					"%s: version %d reuses an idempotency key of an earlier event in its stream; the current store keeps one event per key", streamName(e.stream()), e.Version)
			}
			return res, migrationFailure("write", err)
		}
		if r.assigned {
			res.Assigned++
		}
		if r.eventDigest != p.EventDigest {
			res.Redigested++
		}
		if r.eventType != p.EventType {
			res.Retyped++
		}
	}
	if err := rows.Err(); err != nil {
		return res, migrationFailure("read", err)
	}
	if err := tx.Commit(); err != nil {
		return res, migrationFailure("write", err)
	}
	if err := errors.Join(conn.Close(), db.Close()); err != nil {
		return res, migrationFailure("write", err)
	}
	if err := atomicfile.Sync(tmp); err != nil {
		return res, migrationFailure("sync", err)
	}
	res.Content = h.finish()
	return res, nil
}

// convert checks one legacy row and derives its current form.
func convert(r legacyEvent, lim driver.Limits) (contentEvent, *driver.PreparedAppend, error) {
	id := driver.StreamID{Source: r.source.String, Resource: r.resource.String, Key: r.key.String}
	where := func() string {
		if !r.version.Valid {
			return streamName(id)
		}
		return fmt.Sprintf("%s version %d", streamName(id), r.version.Int64)
	}
	for _, col := range []struct {
		name string
		ok   bool
	}{
		{"data_source_ref", r.source.Valid}, {"resource", r.resource.Valid}, {"aggregate_id", r.key.Valid},
		{"version", r.version.Valid}, {"idempotency_key", r.idempotencyKey.Valid},
		{"event_json", r.eventJSON.Valid}, {"committed_at", r.committedAt.Valid},
	} {
		if !col.ok {
			want := "text"
			if col.name == "version" {
				want = "an integer"
			}
			return contentEvent{}, nil, driver.Errorf(errcode.DataMigrationLegacyInconsistent, "%s: legacy column %s must hold %s", where(), col.name, want)
		}
	}
	p, err := driver.PrepareAppend(driver.AppendRequest{
		Stream:         driver.Stream{Source: id.Source, Resource: driver.Resource{Name: id.Resource, Kind: driver.KindEventStream}, Key: id.Key},
		IdempotencyKey: r.idempotencyKey.String,
		Event:          []byte(r.eventJSON.String),
	}, lim)
	if err != nil {
		// The driver's message names the field, never the payload.
		return contentEvent{}, nil, driver.Errorf(errcode.DataMigrationLegacyInconsistent, "%s: %s", where(), driver.AsError(err).Message)
	}
	at, err := time.Parse(time.RFC3339Nano, r.committedAt.String)
	if err != nil {
		return contentEvent{}, nil, driver.Errorf(errcode.DataMigrationLegacyInconsistent, "%s: committed_at is not an RFC 3339 time", where())
	}
	return contentEvent{
		Source: id.Source, Resource: id.Resource, Key: id.Key, Version: r.version.Int64,
		IdempotencyKey: r.idempotencyKey.String, Type: p.EventType, Digest: p.EventDigest,
		CommittedAtMillis: driver.CommitTime(at).UnixMilli(),
	}, p, nil
}

// inconsistent turns a sequence error the hasher found in legacy rows into
// the migration's refusal.
func inconsistent(err error) error {
	return driver.Errorf(errcode.DataMigrationLegacyInconsistent, "%s", driver.AsError(err).Message)
}
