package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
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
// runx_store_append is the one append routine. It runs in the caller's
// implicit transaction at READ COMMITTED and decides, in order: the
// idempotency key (replay or conflict), then the expected version, then the
// append. The stream head's row lock, taken by the conditional UPDATE that
// bumps the head (version and projection digest, computed in SQL with
// sha256(previous || event)), serializes appends to one stream while other
// streams proceed. READ COMMITTED is the right isolation: an UPDATE that
// waited for the lock re-checks the committed row, so no serialization
// failures need retrying, and the lock gives the guarantee SERIALIZABLE would
// for this access pattern at no abort rate. Two races end in a unique
// violation that rolls the loser back whole, and the driver retries it: two
// first appends to a new stream (the head's primary key), and two appends
// with one idempotency key (the idempotency constraint).
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
  -- The key decides first: a retry of a committed append carries the version
  -- it was made against, which is stale by now.
  SELECT e.version, e.event_digest, e.projection_digest, e.committed_at INTO prior
    FROM %[1]s.runx_store_events AS e
   WHERE e.data_source_ref = p_source AND e.resource = p_resource AND e.aggregate_id = p_key
     AND e.idempotency_key = p_idempotency_key;
  IF FOUND THEN
    SELECT h.version INTO o_current FROM %[1]s.runx_store_heads AS h
     WHERE h.data_source_ref = p_source AND h.resource = p_resource AND h.aggregate_id = p_key;
    o_version := prior.version;
    IF prior.event_digest = p_event_digest THEN
      o_outcome := 'replayed';
      o_projection := prior.projection_digest;
      o_committed_at := prior.committed_at;
    ELSE
      o_outcome := 'idempotency_conflict';
    END IF;
    RETURN;
  END IF;

  -- Bump the head if it is at the expected version. The UPDATE takes the
  -- head row's lock: a concurrent append to the stream waits here, then sees
  -- the committed head (READ COMMITTED re-checks the row it waited for).
  FOR attempt IN 1..3 LOOP
    UPDATE %[1]s.runx_store_heads AS h
       SET version = h.version + 1,
           projection_digest = 'sha256:' || encode(sha256(
             decode(substr(h.projection_digest, 8), 'hex') || decode(substr(p_event_digest, 8), 'hex')), 'hex'),
           event_type = p_event_type, event_digest = p_event_digest, committed_at = p_committed_at
     WHERE h.data_source_ref = p_source AND h.resource = p_resource AND h.aggregate_id = p_key
       AND (p_expected IS NULL OR h.version = p_expected)
    RETURNING h.version, h.projection_digest INTO o_version, o_projection;
    EXIT WHEN FOUND;
    SELECT h.version INTO o_current FROM %[1]s.runx_store_heads AS h
     WHERE h.data_source_ref = p_source AND h.resource = p_resource AND h.aggregate_id = p_key;
    IF FOUND THEN
      -- With no expected version, a head committed after the UPDATE's
      -- snapshot (a racing first append) is simply appended to: again.
      CONTINUE WHEN p_expected IS NULL;
      o_outcome := 'version_conflict';
      RETURN;
    END IF;
    IF coalesce(p_expected, 0) <> 0 THEN
      o_current := 0;
      o_outcome := 'version_conflict';
      RETURN;
    END IF;
    -- The stream's first event. A racing first append collides on the
    -- head's primary key and is retried by the driver.
    o_version := 1;
    o_projection := 'sha256:' || encode(sha256(
      decode(substr('%[2]s', 8), 'hex') || decode(substr(p_event_digest, 8), 'hex')), 'hex');
    INSERT INTO %[1]s.runx_store_heads (data_source_ref, resource, aggregate_id, version,
        event_type, event_digest, projection_digest, committed_at)
      VALUES (p_source, p_resource, p_key, 1, p_event_type, p_event_digest, o_projection, p_committed_at);
    EXIT;
  END LOOP;
  IF o_version IS NULL THEN
    RAISE EXCEPTION 'the stream head kept moving' USING ERRCODE = '40001';
  END IF;

  -- A racing append with the same key collides on the idempotency
  -- constraint and is retried by the driver, which then replays it.
  INSERT INTO %[1]s.runx_store_events (data_source_ref, resource, aggregate_id, version, idempotency_key,
      event_type, event_digest, projection_digest, committed_at, event_json)
    VALUES (p_source, p_resource, p_key, o_version, p_idempotency_key,
      p_event_type, p_event_digest, o_projection, p_committed_at, p_event_json);
  o_current := o_version - 1;
  o_outcome := 'committed';
  o_committed_at := p_committed_at;
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
	return driver.Errorf(errcode.StoreSchemaUnrecognized,
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
