package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"
)

// The current schema (SCHEMA.md in the driver package describes it and the
// legacy shapes). A store file is marked with SQLite's application_id so that
// a runx store can never be confused with another program's database, and
// with user_version for the schema revision.
const (
	ApplicationID = 0x52554E58 // "RUNX"
	SchemaVersion = 1
)

// createSchema is run once, inside the BEGIN IMMEDIATE that first claims an
// empty file.
//
// Events are clustered by stream and version (WITHOUT ROWID), so a page is
// one range scan and a stream's head is its last row: there is no separate
// heads table to keep consistent, and an append writes two b-trees (the
// events and the idempotency index), no more than a plain INSERT into a keyed
// table. Commit times are UTC milliseconds since the epoch. Text columns use
// the BINARY collation, so keys sort in byte order, the order stream heads are
// listed in on every driver.
var createSchema = []string{
	`CREATE TABLE runx_store_events (
  data_source_ref TEXT NOT NULL,
  resource TEXT NOT NULL,
  aggregate_id TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version > 0),
  idempotency_key TEXT NOT NULL,
  event_type TEXT NOT NULL,
  event_digest TEXT NOT NULL,
  projection_digest TEXT NOT NULL,
  committed_at INTEGER NOT NULL,
  event_json TEXT NOT NULL,
  PRIMARY KEY (data_source_ref, resource, aggregate_id, version)
) WITHOUT ROWID`,
	`CREATE UNIQUE INDEX runx_store_events_idempotency
  ON runx_store_events (data_source_ref, resource, aggregate_id, idempotency_key)`,
	`PRAGMA application_id = 1381322328`,
	`PRAGMA user_version = 1`,
}

var (
	currentEventColumns = []string{"data_source_ref", "resource", "aggregate_id", "version", "idempotency_key",
		"event_type", "event_digest", "projection_digest", "committed_at", "event_json"}
	currentTables = []string{"runx_store_events"}

	// The legacy event store this version recognizes (runx before the Go
	// line): events unscoped by source, or scoped; optional heads, with or
	// without a projection digest; an optional migrations ledger.
	legacyUnscopedEvents = []string{"resource", "aggregate_id", "version", "idempotency_key", "event_ref",
		"event_type", "event_digest", "event_json", "committed_at"}
	legacyScopedEvents = append([]string{"data_source_ref"}, legacyUnscopedEvents...)
	legacyHeads        = []string{"data_source_ref", "resource", "aggregate_id", "version", "event_ref", "event_type",
		"event_digest", "idempotency_key", "event_json", "committed_at"}
	legacyHeadsWithProjection = append(slices.Clone(legacyHeads), "projection_digest")
	legacyMigrations          = []string{"version", "applied_at"}
)

// State is what a database file holds, as far as the store is concerned.
type State string

const (
	StateEmpty          State = "empty"           // no tables: the store claims it
	StateCurrent        State = "current"         // the current schema
	StateLegacyUnscoped State = "legacy_unscoped" // recognized legacy, events without a source
	StateLegacyScoped   State = "legacy_scoped"   // recognized legacy, events scoped by source
	StateUnrecognized   State = "unrecognized"    // anything else; never touched
)

// Legacy reports whether the state is a recognized legacy schema, which
// `runx data migrate` upgrades.
func (s State) Legacy() bool { return s == StateLegacyUnscoped || s == StateLegacyScoped }

// Inspect fingerprints the schema of an open database without changing it.
// `runx data migrate` uses it to recognize what it may migrate.
func Inspect(ctx context.Context, q Queryer) (State, error) {
	var appID, userVersion int64
	if err := q.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return "", err
	}
	if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&userVersion); err != nil {
		return "", err
	}
	tables, err := tableNames(ctx, q)
	if err != nil {
		return "", err
	}
	if len(tables) == 0 && appID == 0 && userVersion == 0 {
		return StateEmpty, nil
	}
	if appID == ApplicationID {
		if userVersion == SchemaVersion && slices.Equal(tables, currentTables) {
			ok, err := currentShape(ctx, q)
			if err != nil || ok {
				return StateCurrent, err
			}
		}
		return StateUnrecognized, nil
	}
	if appID != 0 || (userVersion != 0 && userVersion != 1) {
		return StateUnrecognized, nil
	}
	return legacyState(ctx, q, tables)
}

func currentShape(ctx context.Context, q Queryer) (bool, error) {
	cols, err := columns(ctx, q, "runx_store_events")
	if err != nil || !slices.Equal(cols, currentEventColumns) {
		return false, err
	}
	var n int
	err = q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'runx_store_events_idempotency'`).Scan(&n)
	return n == 1, err
}

func legacyState(ctx context.Context, q Queryer, tables []string) (State, error) {
	state := StateUnrecognized
	for _, table := range tables {
		cols, err := columns(ctx, q, table)
		if err != nil {
			return "", err
		}
		switch {
		case table == "runx_events" && slices.Equal(cols, legacyUnscopedEvents):
			state = StateLegacyUnscoped
		case table == "runx_events" && slices.Equal(cols, legacyScopedEvents):
			state = StateLegacyScoped
		case table == "runx_stream_heads" && (slices.Equal(cols, legacyHeads) || slices.Equal(cols, legacyHeadsWithProjection)):
		case table == "runx_data_store_migrations" && slices.Equal(cols, legacyMigrations):
		default:
			return StateUnrecognized, nil
		}
	}
	return state, nil
}

// Queryer is what Inspect reads through: a *sql.DB, *sql.Conn or *sql.Tx.
type Queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func tableNames(ctx context.Context, q Queryer) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// columns lists a table's columns in order. The table name comes from
// sqlite_master, never from a request; pragma_table_info takes it as a bound
// parameter.
func columns(ctx context.Context, q Queryer, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, strings.ToLower(c))
	}
	return cols, rows.Err()
}
