package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

func migrationCall(t *testing.T, db, backup string) *plugin.Call {
	t.Helper()
	binding, _ := json.Marshal(map[string]any{"migration": map[string]string{"database_path": db, "backup_path": backup}})
	input, _ := json.Marshal(map[string]string{"database": "data/events.sqlite", "backup": "data/events.bak.sqlite", "source": "tenant://acme/board"})
	return &plugin.Call{Capability: CapMigrate, Input: input, Context: plugin.Context{Binding: binding}}
}

func legacyFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		`CREATE TABLE runx_events (resource TEXT NOT NULL, aggregate_id TEXT NOT NULL, version INTEGER NOT NULL,
		  idempotency_key TEXT NOT NULL, event_ref TEXT NOT NULL, event_type TEXT NOT NULL, event_digest TEXT NOT NULL,
		  event_json TEXT NOT NULL, committed_at TEXT NOT NULL, PRIMARY KEY (resource, aggregate_id, version))`,
		`INSERT INTO runx_events VALUES ('board_events', 'posting-1', 1, 'k1', 'board_events:posting-1:1', 'posting.created',
		  'sha256:00', '{"type":"posting.created"}', '2026-07-14T00:00:00.000Z')`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestMigrateCapability(t *testing.T) {
	p := New()
	var found bool
	for _, d := range p.Info().Capabilities {
		found = found || (d.ID == CapMigrate && d.Effect == plugin.EffectWrite)
	}
	if !found {
		t.Fatal("store/migrate is not described")
	}
	path := legacyFile(t)
	backup := filepath.Join(filepath.Dir(path), "events.bak.sqlite")
	res := p.Invoke(context.Background(), migrationCall(t, path, backup))
	if res.Status != plugin.StatusOK {
		t.Fatalf("%s %s: %s", res.Status, res.Code, res.Message)
	}
	var proof map[string]any
	if err := json.Unmarshal(res.Output, &proof); err != nil {
		t.Fatal(err)
	}
	if proof["schema"] != "runx.data.migration_proof.v1" || proof["status"] != "migrated" || proof["database"] != "data/events.sqlite" {
		t.Fatalf("proof: %v", proof)
	}
	if _, err := os.Stat(backup); err != nil {
		t.Fatal("no backup")
	}
	again := p.Invoke(context.Background(), migrationCall(t, path, filepath.Join(filepath.Dir(path), "other.sqlite")))
	if again.Status != plugin.StatusOK || !json.Valid(again.Output) {
		t.Fatalf("again: %s %s", again.Code, again.Message)
	}
	json.Unmarshal(again.Output, &proof)
	if proof["status"] != "current" || proof["backup"] != nil {
		t.Fatalf("second proof: %v", proof)
	}
}

func TestMigrateCapabilityRefusals(t *testing.T) {
	p := New()
	// A step's binding never carries a migration.
	call := migrationCall(t, "/x", "/y")
	call.Context.Binding = json.RawMessage(`{"project_dir":"/w/.runx"}`)
	if res := p.Invoke(context.Background(), call); res.Status != plugin.StatusRefused || res.Code != "store_migration_binding_missing" {
		t.Fatalf("%s %s", res.Status, res.Code)
	}
	// An unknown schema is a refusal, not a failure.
	path := filepath.Join(t.TempDir(), "notes.sqlite")
	db, _ := sql.Open("sqlite", path)
	db.Exec(`CREATE TABLE notes (body TEXT)`)
	db.Close()
	res := p.Invoke(context.Background(), migrationCall(t, path, path+".bak"))
	if res.Status != plugin.StatusRefused || res.Code != "store_schema_unrecognized" {
		t.Fatalf("%s %s", res.Status, res.Code)
	}
}
