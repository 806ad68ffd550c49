package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
	_ "modernc.org/sqlite" // writes the legacy database the scenario migrates
)

// legacyEventsDDL is the event table of the runx before this one, unscoped
// by source (plugins/store/driver/SCHEMA.md), with the heads table it kept.
var legacyEventsDDL = []string{
	`PRAGMA journal_mode = WAL`,
	`CREATE TABLE runx_events (resource TEXT NOT NULL, aggregate_id TEXT NOT NULL, version INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL, event_ref TEXT NOT NULL, event_type TEXT NOT NULL, event_digest TEXT NOT NULL,
  event_json TEXT NOT NULL, committed_at TEXT NOT NULL, PRIMARY KEY (resource, aggregate_id, version))`,
	`CREATE TABLE runx_stream_heads (data_source_ref TEXT, resource TEXT, aggregate_id TEXT, version INTEGER, event_ref TEXT,
  event_type TEXT, event_digest TEXT, idempotency_key TEXT, event_json TEXT, committed_at TEXT)`,
}

// writeLegacyStore writes streams posting-1..streams of perStream events.
func writeLegacyStore(t *testing.T, path string, streams, perStream int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range legacyEventsDDL {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	for s := 1; s <= streams; s++ {
		for v := 1; v <= perStream; v++ {
			key := fmt.Sprintf("posting-%d", s)
			body := fmt.Sprintf(`{ "type": "posting.noted", "payload": {"n": %d, "by": "agent-%d"} }`, v, s)
			sum := sha256.Sum256([]byte(body))
			if _, err := db.Exec(`INSERT INTO runx_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, "board_events", key, v,
				fmt.Sprintf("%s:%d", key, v), fmt.Sprintf("board_events:%s:%d", key, v), "posting.noted",
				"sha256:"+hex.EncodeToString(sum[:]), body, fmt.Sprintf("2026-07-14T00:00:%02d.000Z", v)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// legacyProjection recomputes, independently of the store, the projection
// digest a stream of writeLegacyStore has after its migration: each body in
// RFC 8785 form, digested, folded from the genesis.
func legacyProjection(t *testing.T, stream, versions int) string {
	t.Helper()
	p := sha256.Sum256([]byte("runx.data.projection.v1"))
	for v := 1; v <= versions; v++ {
		body, err := jcs.Transform([]byte(fmt.Sprintf(`{ "type": "posting.noted", "payload": {"n": %d, "by": "agent-%d"} }`, v, stream)))
		if err != nil {
			t.Fatal(err)
		}
		e := sha256.Sum256(body)
		p = sha256.Sum256(append(p[:], e[:]...))
	}
	return "sha256:" + hex.EncodeToString(p[:])
}

const migrateBindings = `{"data_sources": {"tenant://example/events": {"adapter": "data.sqlite", "database_path": ".runx/data/events.sqlite",
  "resources": {"board_events": {"kind": "event_stream", "partition_key": "aggregate_id"}}}}}`

// The walkthrough's migration, verbatim, on a store in the legacy schema:
// refused by the store until migrated; migrated with a backup and a proof;
// then read back, inspected and appended to through the data-store skill;
// migrated again, it is proven current and not touched.
func TestDataMigrateLegacyStore(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	w := newWorkspace(t, map[string]string{".runx/data-sources.json": migrateBindings})
	if err := os.Symlink(filepath.Join(repo, "skills"), filepath.Join(w.dir, "skills")); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(w.dir, ".runx", "data", "events.sqlite")
	writeLegacyStore(t, db, 3, 4)
	legacy, _ := os.ReadFile(db)
	read := func(key string) (map[string]any, int) {
		return w.run("", nil, "skill", "skills/data-store", "read_events", "-i", "data_source_ref=tenant://example/events",
			"-i", "resource=board_events", "-i", "aggregate_id="+key, "--input-json", "after_version=0", "--input-json", "limit=10", "--json")
	}

	refused, code := read("posting-1")
	if code == 0 || str(refused, "error", "code") != "store_needs_migration" {
		t.Fatalf("a legacy store must be refused until migrated: %d %v", code, refused)
	}
	if now, _ := os.ReadFile(db); !bytes.Equal(now, legacy) {
		t.Fatal("refusing a legacy store changed it")
	}

	proof, code := w.run("", nil, "data", "migrate", "--database", ".runx/data/events.sqlite", "--source", "tenant://example/events", "--json")
	if code != 0 || str(proof, "schema") != "runx.data.migration_proof.v1" || str(proof, "status") != "migrated" {
		t.Fatalf("migrate: %d %v", code, proof)
	}
	if get(proof, "before", "events") != 12.0 || get(proof, "after", "events") != 12.0 || get(proof, "after", "streams") != 3.0 ||
		get(proof, "changes", "assigned_events") != 12.0 || str(proof, "before", "state") != "legacy_unscoped" ||
		str(proof, "after", "content_digest") != str(proof, "verification", "readback", "content_digest") {
		t.Fatalf("proof: %v", proof)
	}
	backup := str(proof, "backup", "path")
	if !strings.HasPrefix(backup, ".runx/data/events.sqlite.pre-migration-") {
		t.Fatalf("default backup path: %q", backup)
	}
	raw, err := os.ReadFile(filepath.Join(w.dir, backup))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); "sha256:"+hex.EncodeToString(sum[:]) != str(proof, "backup", "digest") {
		t.Fatal("the backup is not the file the proof names")
	}

	page, code := read("posting-2")
	events, _ := get(page, "result", "data_operation_result", "events").([]any)
	if code != 0 || len(events) != 4 || str(events[3], "event_type") != "posting.noted" || str(events[3], "event_ref") != "board_events:posting-2:4" {
		t.Fatalf("read after migration: %d %v", code, page)
	}
	head, _ := w.run("", nil, "skill", "skills/data-store", "read_projection", "-i", "data_source_ref=tenant://example/events",
		"-i", "resource=board_events", "-i", "aggregate_id=posting-2", "--json")
	if get(head, "result", "data_operation_result", "projection", "version") != 4.0 ||
		str(head, "result", "data_operation_result", "projection_digest") != legacyProjection(t, 2, 4) {
		t.Fatalf("projection after migration: %v", head)
	}

	again, code := w.run("", nil, "data", "migrate", "--database", ".runx/data/events.sqlite", "--source", "tenant://example/events", "--json")
	if code != 0 || str(again, "status") != "current" || get(again, "backup") != nil ||
		str(again, "after", "content_digest") != str(proof, "after", "content_digest") {
		t.Fatalf("migrating a migrated store: %d %v", code, again)
	}

	appended, code := w.run("", nil, "skill", "skills/data-store", "append_event", "-i", "data_source_ref=tenant://example/events",
		"-i", "resource=board_events", "-i", "aggregate_id=posting-2", "--input-json", "expected_version=4",
		"-i", "idempotency_key=posting-2:close", "--input-json", `event={"type":"posting.closed"}`, "--json")
	if code != 0 || get(appended, "result", "data_operation_result", "after_version") != 5.0 {
		t.Fatalf("append after migration: %d %v", code, appended)
	}
}

// An unknown schema and a path outside the workspace are refused through
// the real binary; the file stays byte-identical and no backup appears.
func TestDataMigrateRefusals(t *testing.T) {
	w := newWorkspace(t, nil)
	db := filepath.Join(w.dir, "other.sqlite")
	sqldb, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	sqldb.Exec(`CREATE TABLE runx_events (resource TEXT, note TEXT)`)
	sqldb.Exec(`INSERT INTO runx_events VALUES ('a', 'b')`)
	sqldb.Close()
	before, _ := os.ReadFile(db)
	out, code := w.run("", nil, "data", "migrate", "--database", "other.sqlite", "--source", "tenant://example/events", "--backup", "other.bak", "--json")
	if code != 1 || str(out, "error", "code") != "store_schema_unrecognized" {
		t.Fatalf("%d %v", code, out)
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(after, before) {
		t.Fatal("an unrecognized schema was changed")
	}
	if _, err := os.Stat(filepath.Join(w.dir, "other.bak")); err == nil {
		t.Fatal("an unrecognized schema got a backup")
	}
	outside := filepath.Join(t.TempDir(), "events.sqlite")
	writeLegacyStore(t, outside, 1, 1)
	out, _ = w.run("", nil, "data", "migrate", "--database", outside, "--source", "tenant://example/events", "--json")
	if str(out, "error", "code") != "data_migration_path_outside_workspace" {
		t.Fatalf("outside: %v", out)
	}
}
