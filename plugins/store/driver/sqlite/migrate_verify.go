package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// Verification reads the migrated file twice, by two independent paths, and
// each must agree with what the build computed:
//
//   - readback: the current driver opens the file as any run will and every
//     stream is read through its ListKeys and forward Read pages;
//   - reopen: after the driver has closed, the file is opened read-only and
//     immutable (the exact bytes that will be renamed into place) and every
//     row is re-derived: canonical event bytes, event digest, event type,
//     projection chain, gapless versions; then counted and digested.

// scanCurrent is the read-only pass over a current store. It also returns
// the (source, resource) pairs, in key order, for the readback to walk.
func scanCurrent(ctx context.Context, q Queryer, lim driver.Limits) (contentSummary, [][2]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT data_source_ref, resource, aggregate_id, version, idempotency_key,
  event_type, event_digest, projection_digest, committed_at, event_json
FROM runx_store_events ORDER BY data_source_ref, resource, aggregate_id, version`)
	if err != nil {
		return contentSummary{}, nil, err
	}
	defer rows.Close()
	h := newContentHasher()
	var pairs [][2]string
	for rows.Next() {
		var e contentEvent
		var data []byte
		if err := rows.Scan(&e.Source, &e.Resource, &e.Key, &e.Version, &e.IdempotencyKey,
			&e.Type, &e.Digest, &e.Projection, &e.CommittedAtMillis, &data); err != nil {
			return contentSummary{}, nil, err
		}
		if err := checkStored(e, data, lim); err != nil {
			return contentSummary{}, nil, err
		}
		if err := h.add(e); err != nil {
			return contentSummary{}, nil, err
		}
		if n := len(pairs); n == 0 || pairs[n-1] != [2]string{e.Source, e.Resource} {
			pairs = append(pairs, [2]string{e.Source, e.Resource})
		}
	}
	if err := rows.Err(); err != nil {
		return contentSummary{}, nil, err
	}
	return h.finish(), pairs, nil
}

// checkStored re-derives a stored event with the driver's own definitions:
// its bytes must be their canonical form, and its digest and type must be
// what an append of those bytes would have recorded.
func checkStored(e contentEvent, data []byte, lim driver.Limits) error {
	p, err := driver.PrepareAppend(driver.AppendRequest{
		Stream:         driver.Stream{Source: e.Source, Resource: driver.Resource{Name: e.Resource, Kind: driver.KindEventStream}, Key: e.Key},
		IdempotencyKey: e.IdempotencyKey,
		Event:          data,
	}, lim)
	switch {
	case err != nil:
		return driver.Errorf(errcode.StoreCorrupt, "%s version %d: %s", streamName(e.stream()), e.Version, driver.AsError(err).Message)
	case !bytes.Equal(p.Event, data):
		return driver.Errorf(errcode.StoreCorrupt, "%s version %d: the stored event is not in canonical form", streamName(e.stream()), e.Version)
	case p.EventDigest != e.Digest:
		return driver.Errorf(errcode.StoreCorrupt, "%s version %d: event_digest is not the digest of the stored event", streamName(e.stream()), e.Version)
	case p.EventType != e.Type:
		return driver.Errorf(errcode.StoreCorrupt, "%s version %d: event_type is not the type the event derives", streamName(e.stream()), e.Version)
	}
	return nil
}

// verifyReopened opens path read-only and runs the integrity check and the
// full read-only pass.
func verifyReopened(ctx context.Context, path string, lim driver.Limits) (schemaLook, contentSummary, [][2]string, error) {
	db, conn, err := openReadOnly(ctx, path)
	if err != nil {
		return schemaLook{}, contentSummary{}, nil, err
	}
	defer db.Close()
	defer conn.Close()
	// One read transaction: a live store (a current proof) is read as one
	// snapshot while runs may append.
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return schemaLook{}, contentSummary{}, nil, err
	}
	defer tx.Rollback()
	look, err := lookAt(ctx, tx)
	if err != nil {
		return look, contentSummary{}, nil, err
	}
	if look.State != StateCurrent {
		return look, contentSummary{}, nil, driver.Errorf(errcode.StoreCorrupt, "the file does not hold the current schema (it reads as %s)", look.State)
	}
	var integrity string
	if err := tx.QueryRowContext(ctx, `PRAGMA integrity_check(1)`).Scan(&integrity); err != nil {
		return look, contentSummary{}, nil, err
	}
	if integrity != "ok" {
		return look, contentSummary{}, nil, driver.Errorf(errcode.StoreCorrupt, "SQLite's integrity check fails: %s", driver.NewScrubber().Scrub(integrity))
	}
	sum, pairs, err := scanCurrent(ctx, tx, lim)
	return look, sum, pairs, err
}

// readBack reads every stream of the given (source, resource) pairs through
// the current driver.
func readBack(ctx context.Context, path string, pairs [][2]string, lim driver.Limits) (contentSummary, error) {
	d, err := Open(ctx, Config{Path: path, Limits: lim})
	if err != nil {
		return contentSummary{}, err
	}
	h := newContentHasher()
	for _, pair := range pairs {
		if err := readResource(ctx, d, pair[0], driver.Resource{Name: pair[1], Kind: driver.KindEventStream}, h); err != nil {
			d.Close()
			return contentSummary{}, err
		}
	}
	// The driver's last connection checkpoints its WAL into the file as it
	// closes: the reopen that follows reads exactly what will be renamed.
	if err := d.Close(); err != nil {
		return contentSummary{}, err
	}
	return h.finish(), nil
}

func readResource(ctx context.Context, d *Driver, source string, res driver.Resource, h *contentHasher) error {
	cursor := ""
	for {
		page, err := d.ListKeys(ctx, driver.ListRequest{Source: source, Resource: res, Cursor: cursor, Limit: driver.MaxPageEvents})
		if err != nil {
			return err
		}
		for _, head := range page.Heads {
			if err := readStream(ctx, d, driver.Stream{Source: source, Resource: res, Key: head.Key}, head, h); err != nil {
				return err
			}
		}
		if !page.HasMore {
			return nil
		}
		cursor = page.NextCursor
	}
}

// readStream pages forward through one stream and checks the pages against
// the head its listing reported.
func readStream(ctx context.Context, d *Driver, s driver.Stream, head driver.Head, h *contentHasher) error {
	after := int64(0)
	var previous *int64
	var last driver.Event
	for {
		cursor := after
		page, err := d.Read(ctx, driver.ReadRequest{Stream: s, AfterVersion: &cursor, PreviousAfterVersion: previous, Limit: driver.MaxPageEvents})
		if err != nil {
			return err
		}
		for _, ev := range page.Events {
			if driver.Digest(ev.Data) != ev.Digest {
				return driver.Errorf(errcode.StoreCorrupt, "%s version %d: the event read back does not match its digest", streamName(s.ID()), ev.Version)
			}
			if err := h.add(contentEvent{Source: s.Source, Resource: s.Resource.Name, Key: s.Key, Version: ev.Version,
				IdempotencyKey: ev.IdempotencyKey, Type: ev.Type, Digest: ev.Digest, Projection: ev.ProjectionDigest,
				CommittedAtMillis: ev.CommittedAt.UnixMilli()}); err != nil {
				return err
			}
			last = ev
		}
		if !page.HasMore {
			break
		}
		previous, after = &cursor, page.NextAfterVersion
	}
	if last.Version != head.Version || last.ProjectionDigest != head.ProjectionDigest {
		return driver.Errorf(errcode.StoreCorrupt, "%s: the head listed (version %d) is not the last event read (version %d)", streamName(s.ID()), head.Version, last.Version)
	}
	return nil
}

// verified is what the two passes found.
type verified struct {
	Look     schemaLook
	Reopened contentSummary
	Readback contentSummary
}

// verifyMigrated runs both passes over the new file and holds them to the
// build. Any disagreement is data_migration_unverified: the new file is
// discarded and the original stays.
func verifyMigrated(ctx context.Context, path string, built buildResult, lim driver.Limits) (verified, error) {
	var v verified
	pairs, err := resourcePairs(ctx, path)
	if err != nil {
		return v, unverified("listing the new file's resources", err)
	}
	if v.Readback, err = readBack(ctx, path, pairs, lim); err != nil {
		return v, unverified("reading the new file back through the store driver", err)
	}
	// Only the main file is renamed into place: a WAL the driver left
	// behind would hold events the renamed file lacks.
	if err := clearSideFiles(path); err != nil {
		return v, unverified("after the readback", err)
	}
	if v.Look, v.Reopened, _, err = verifyReopened(ctx, path, lim); err != nil {
		return v, unverified("re-reading the new file read-only", err)
	}
	for _, got := range []struct {
		pass string
		sum  contentSummary
	}{{"the read-only reopen", v.Reopened}, {"the driver readback", v.Readback}} {
		if got.sum != built.Content {
			return v, driver.Errorf(errcode.DataMigrationUnverified,
				"%s found %d events in %d streams with content digest %s, but the migration wrote %d events in %d streams with %s; the original was left as it was",
				got.pass, got.sum.Events, got.sum.Streams, got.sum.Digest, built.Content.Events, built.Content.Streams, built.Content.Digest)
		}
	}
	return v, nil
}

// resourcePairs lists the (source, resource) pairs of a current store in
// key order: what the readback walks, one listing each.
func resourcePairs(ctx context.Context, path string) ([][2]string, error) {
	db, conn, err := openReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT DISTINCT data_source_ref, resource FROM runx_store_events ORDER BY data_source_ref, resource`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pairs [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, err
		}
		pairs = append(pairs, p)
	}
	return pairs, rows.Err()
}

func unverified(stage string, err error) error {
	msg := err.Error()
	var de *driver.Error
	if errors.As(err, &de) {
		msg = de.Message
	}
	return driver.Errorf(errcode.DataMigrationUnverified, "verification failed %s: %s; the original was left as it was", stage, driver.NewScrubber().Scrub(msg)).WithCause(err)
}
