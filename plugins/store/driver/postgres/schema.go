package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/runxhq/runx/plugins/store/driver"
)

// SchemaMarker is the value of runx_store_meta's "schema" row: the schema
// revision this driver opens. A store schema without it, or with another, is
// refused rather than guessed at.
const SchemaMarker = "runx.store.postgres.v1"

// schemaLockKey serializes schema creation across processes
// (pg_advisory_xact_lock), since concurrent CREATE ... IF NOT EXISTS can
// still collide in the catalogs.
const schemaLockKey = 0x52554E58 // "RUNX"

// ddl creates the store in its PostgreSQL schema. %[1]s is the quoted schema
// name, %[2]s the genesis projection digest; nothing else is substituted.
//
// Keys use the "C" collation so that stream heads list in byte order, as on
// every driver, and so that their btrees compare bytes, not locale rules.
//
// runx_store_append is the one append routine: it runs inside the caller's
// (implicit) transaction at READ COMMITTED, takes the stream head's row lock
// (SELECT ... FOR UPDATE) so that appends to one stream serialize while other
// streams proceed, and decides replay, conflict or commit on the locked head.
// READ COMMITTED is the right isolation here: each statement of the routine
// sees the latest committed state once the lock is granted, so no
// serialization failures need retrying, and the row lock gives the same
// guarantee SERIALIZABLE would for this access pattern. A stream's first
// append has no head row to lock; two racing first appends collide on the
// events primary key and the loser is retried by the driver. The projection
// step is the documented one: sha256(previous || event), raw 32-byte
// digests.
const ddl = `
CREATE SCHEMA IF NOT EXISTS %[1]s;
CREATE TABLE IF NOT EXISTS %[1]s.runx_store_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE IF NOT EXISTS %[1]s.runx_store_events (
  data_source_ref text COLLATE "C" NOT NULL,
  resource text COLLATE "C" NOT NULL,
  aggregate_id text COLLATE "C" NOT NULL,
  version bigint NOT NULL CHECK (version > 0),
  idempotency_key text COLLATE "C" NOT NULL,
  event_type text NOT NULL,
  event_digest text NOT NULL,
  projection_digest text NOT NULL,
  committed_at timestamptz NOT NULL,
  event_json text NOT NULL,
  PRIMARY KEY (data_source_ref, resource, aggregate_id, version),
  CONSTRAINT runx_store_events_idempotency UNIQUE (data_source_ref, resource, aggregate_id, idempotency_key)
);
CREATE TABLE IF NOT EXISTS %[1]s.runx_store_heads (
  data_source_ref text COLLATE "C" NOT NULL,
  resource text COLLATE "C" NOT NULL,
  aggregate_id text COLLATE "C" NOT NULL,
  version bigint NOT NULL CHECK (version > 0),
  event_type text NOT NULL,
  event_digest text NOT NULL,
  projection_digest text NOT NULL,
  committed_at timestamptz NOT NULL,
  PRIMARY KEY (data_source_ref, resource, aggregate_id)
);
CREATE OR REPLACE FUNCTION %[1]s.runx_store_append(
  p_source text, p_resource text, p_key text, p_expected bigint, p_idempotency_key text,
  p_event_type text, p_event_digest text, p_event_json text, p_committed_at timestamptz,
  OUT o_outcome text, OUT o_version bigint, OUT o_projection text, OUT o_committed_at timestamptz, OUT o_current bigint)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  prior record;
BEGIN
  SELECT h.version, h.projection_digest INTO o_current, o_projection
    FROM %[1]s.runx_store_heads AS h
   WHERE h.data_source_ref = p_source AND h.resource = p_resource AND h.aggregate_id = p_key
     FOR UPDATE;
  IF NOT FOUND THEN
    o_current := 0;
    o_projection := '%[2]s';
  END IF;

  -- The key before the version: a retry of a committed append carries the
  -- version it was made against, which is stale by now.
  SELECT e.version, e.event_digest, e.projection_digest, e.committed_at INTO prior
    FROM %[1]s.runx_store_events AS e
   WHERE e.data_source_ref = p_source AND e.resource = p_resource AND e.aggregate_id = p_key
     AND e.idempotency_key = p_idempotency_key;
  IF FOUND THEN
    o_version := prior.version;
    IF prior.event_digest = p_event_digest THEN
      o_outcome := 'replayed';
      o_projection := prior.projection_digest;
      o_committed_at := prior.committed_at;
    ELSE
      o_outcome := 'idempotency_conflict';
      o_projection := NULL;
    END IF;
    RETURN;
  END IF;

  IF p_expected IS NOT NULL AND p_expected <> o_current THEN
    o_outcome := 'version_conflict';
    o_projection := NULL;
    RETURN;
  END IF;

  o_outcome := 'committed';
  o_version := o_current + 1;
  o_committed_at := p_committed_at;
  o_projection := 'sha256:' || encode(sha256(
    decode(substr(o_projection, 8), 'hex') || decode(substr(p_event_digest, 8), 'hex')), 'hex');
  INSERT INTO %[1]s.runx_store_events (data_source_ref, resource, aggregate_id, version, idempotency_key,
      event_type, event_digest, projection_digest, committed_at, event_json)
    VALUES (p_source, p_resource, p_key, o_version, p_idempotency_key,
      p_event_type, p_event_digest, o_projection, p_committed_at, p_event_json);
  IF o_current = 0 THEN
    INSERT INTO %[1]s.runx_store_heads (data_source_ref, resource, aggregate_id, version,
        event_type, event_digest, projection_digest, committed_at)
      VALUES (p_source, p_resource, p_key, 1, p_event_type, p_event_digest, o_projection, p_committed_at);
  ELSE
    UPDATE %[1]s.runx_store_heads AS h
       SET version = o_version, event_type = p_event_type, event_digest = p_event_digest,
           projection_digest = o_projection, committed_at = p_committed_at
     WHERE h.data_source_ref = p_source AND h.resource = p_resource AND h.aggregate_id = p_key;
  END IF;
END
$fn$;
`

// ensureSchema creates the store's schema if it is absent and refuses one it
// does not recognize. It runs under an advisory lock, so concurrent openers
// create it once.
func (d *Driver) ensureSchema(ctx context.Context, conn *pgx.Conn) error {
	ident := pgx.Identifier{d.cfg.Schema}.Sanitize()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return d.failure("schema", "", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockKey)); err != nil {
		return d.failure("schema", "", err)
	}
	var hasEvents, hasMeta bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL, to_regclass($2) IS NOT NULL`,
		ident+".runx_store_events", ident+".runx_store_meta").Scan(&hasEvents, &hasMeta); err != nil {
		return d.failure("schema", "", err)
	}
	if hasMeta || hasEvents {
		var marker string
		err := tx.QueryRow(ctx, fmt.Sprintf(`SELECT value FROM %s.runx_store_meta WHERE key = 'schema'`, ident)).Scan(&marker)
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == "42P01", errors.Is(err, pgx.ErrNoRows):
			return d.unrecognized()
		case err != nil:
			return d.failure("schema", "", err)
		case marker != SchemaMarker:
			return d.unrecognized()
		}
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf(ddl, ident, driver.GenesisProjection)); err != nil {
		return d.failure("schema", "", err)
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf(`INSERT INTO %s.runx_store_meta (key, value) VALUES ('schema', $1) ON CONFLICT (key) DO NOTHING`, ident), SchemaMarker); err != nil {
		return d.failure("schema", "", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return d.failure("schema", "", err)
	}
	return nil
}

func (d *Driver) unrecognized() error {
	return driver.Errorf(driver.CodeStoreSchemaUnrecognized,
		"the PostgreSQL schema %q holds store tables this driver does not recognize; it was left untouched: use another schema or migrate it", d.cfg.Schema)
}

// validSchemaName keeps the schema name to plain identifiers; it is quoted
// anyway, but a name like this never needs to be.
func validSchemaName(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_' || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return !strings.HasPrefix(s, "pg_")
}
