package sqlite

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Legacy stores as the runx before this one wrote them (SCHEMA.md, "the
// recognized legacy schema"): WAL mode, the event table with its keys, the
// heads table it maintained beside it, and its migrations ledger.
var legacyUnscopedDDL = []string{
	`PRAGMA journal_mode = WAL`,
	`CREATE TABLE runx_events (
  resource TEXT NOT NULL,
  aggregate_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL,
  event_ref TEXT NOT NULL,
  event_type TEXT NOT NULL,
  event_digest TEXT NOT NULL,
  event_json TEXT NOT NULL,
  committed_at TEXT NOT NULL,
  PRIMARY KEY (resource, aggregate_id, version),
  UNIQUE (resource, aggregate_id, idempotency_key))`,
	`CREATE TABLE runx_stream_heads (
  data_source_ref TEXT NOT NULL, resource TEXT NOT NULL, aggregate_id TEXT NOT NULL, version INTEGER NOT NULL,
  event_ref TEXT NOT NULL, event_type TEXT NOT NULL, event_digest TEXT NOT NULL, idempotency_key TEXT NOT NULL,
  event_json TEXT NOT NULL, committed_at TEXT NOT NULL,
  PRIMARY KEY (data_source_ref, resource, aggregate_id))`,
	`CREATE TABLE runx_data_store_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`,
	`INSERT INTO runx_data_store_migrations VALUES (1, '2025-11-02T10:00:00.000Z')`,
}

var legacyScopedDDL = []string{
	`PRAGMA journal_mode = WAL`,
	`CREATE TABLE runx_events (
  data_source_ref TEXT,
  resource TEXT NOT NULL,
  aggregate_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL,
  event_ref TEXT NOT NULL,
  event_type TEXT NOT NULL,
  event_digest TEXT NOT NULL,
  event_json TEXT NOT NULL,
  committed_at DATETIME NOT NULL)`,
	`CREATE TABLE runx_stream_heads (
  data_source_ref TEXT NOT NULL, resource TEXT NOT NULL, aggregate_id TEXT NOT NULL, version INTEGER NOT NULL,
  event_ref TEXT NOT NULL, event_type TEXT NOT NULL, event_digest TEXT NOT NULL, idempotency_key TEXT NOT NULL,
  event_json TEXT NOT NULL, committed_at TEXT NOT NULL, projection_digest TEXT NOT NULL)`,
	`CREATE TABLE runx_data_store_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`,
	`INSERT INTO runx_data_store_migrations VALUES (1, '2025-11-02T10:00:00.000Z'), (2, '2026-01-20T10:00:00.000Z')`,
	`PRAGMA user_version = 1`,
}

// fixtureEvent is one legacy row. Source is nil for an unscoped row.
type fixtureEvent struct {
	Source      *string
	Resource    string
	Key         string
	Version     int64
	Idempotency string
	Type        string
	JSON        string
	CommittedAt string
}

// fixtureEvents makes streams of varied events: typed, effect packets,
// untyped, bodies written non-canonically (spaces, unsorted keys, escaped
// characters), commit times with offsets and sub-millisecond digits.
func fixtureEvents(sources []*string, resources []string, keys, perStream int) []fixtureEvent {
	var out []fixtureEvent
	for _, src := range sources {
		for _, res := range resources {
			for k := 0; k < keys; k++ {
				key := fmt.Sprintf("posting-%d", k)
				for v := 1; v <= perStream; v++ {
					var body, typ string
					switch v % 4 {
					case 0:
						body, typ = fmt.Sprintf(`{"type":"posting.noted","n":%d}`, v), "posting.noted"
					case 1:
						body, typ = fmt.Sprintf(`{ "payload": {"z": 1, "a": "caf\u00e9 %d"}, "type": "posting.created" }`, v), "posting.created"
					case 2:
						body, typ = fmt.Sprintf(`{"operation":"claim","effect_family":"board","actor":"agent-%d"}`, v), "board.claim"
					case 3:
						body, typ = fmt.Sprintf(`{"note":"untyped \"%d\"","big":1.50e3}`, v), "data.event"
					}
					at := fmt.Sprintf("2026-07-14T0%d:00:%02d.123456+02:00", k%10, v%60)
					out = append(out, fixtureEvent{Source: src, Resource: res, Key: key, Version: int64(v),
						Idempotency: fmt.Sprintf("%s:%s:%d", res, key, v), Type: typ, JSON: body, CommittedAt: at})
				}
			}
		}
	}
	return out
}

func ptr(s string) *string { return &s }

// makeLegacyStore writes a legacy store file in the given variant.
func makeLegacyStore(t testing.TB, scoped bool, events []fixtureEvent) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "events.sqlite")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ddl := legacyUnscopedDDL
	if scoped {
		ddl = legacyScopedDDL
	}
	for _, s := range ddl {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		// The legacy digest was taken over the body as written; the
		// migration re-digests the canonical form.
		sum := sha256.Sum256([]byte(e.JSON))
		digest := "sha256:" + hex.EncodeToString(sum[:])
		ref := fmt.Sprintf("%s:%s:%d", e.Resource, e.Key, e.Version)
		if scoped {
			var src any
			if e.Source != nil {
				src = *e.Source
			}
			_, err = tx.Exec(`INSERT INTO runx_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				src, e.Resource, e.Key, e.Version, e.Idempotency, ref, e.Type, digest, e.JSON, e.CommittedAt)
		} else {
			_, err = tx.Exec(`INSERT INTO runx_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				e.Resource, e.Key, e.Version, e.Idempotency, ref, e.Type, digest, e.JSON, e.CommittedAt)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSHA(t testing.TB, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}
