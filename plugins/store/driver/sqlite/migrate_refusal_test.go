package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// refused runs a migration that must be refused with code, and checks that
// the database is byte-identical, no backup was made and nothing was left
// beside it.
func refused(t *testing.T, cfg MigrateConfig, code driver.Code) {
	t.Helper()
	var before string
	if fi, err := os.Stat(cfg.Path); err == nil && fi.Mode().IsRegular() {
		before = fileSHA(t, cfg.Path)
	}
	entries, _ := os.ReadDir(filepath.Dir(cfg.Path))
	proof, err := Migrate(context.Background(), cfg)
	if err == nil || driver.CodeOf(err) != code {
		t.Fatalf("want %s, got %v %+v", code, err, proof)
	}
	if before != "" && fileSHA(t, cfg.Path) != before {
		t.Fatal("a refused migration changed the database")
	}
	if exists(cfg.BackupPath) && code != errcode.DataMigrationBackupExists {
		t.Fatal("a refused migration made a backup")
	}
	after, _ := os.ReadDir(filepath.Dir(cfg.Path))
	if len(after) != len(entries) {
		t.Fatalf("a refused migration left files: %v (was %v)", names(after), names(entries))
	}
}

func names(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// makeRawDB writes a database with raw statements, in rollback mode so that
// the file holds all of it.
func makeRawDB(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

func TestMigrateRefusesUnrecognizedSchemas(t *testing.T) {
	for name, stmts := range map[string][]string{
		"another program":                  {`CREATE TABLE notes (body TEXT)`, `INSERT INTO notes VALUES ('x')`},
		"partial: heads only":              {`CREATE TABLE runx_stream_heads (data_source_ref, resource, aggregate_id, version, event_ref, event_type, event_digest, idempotency_key, event_json, committed_at)`},
		"legacy beside another table":      {legacyUnscopedDDL[1], `CREATE TABLE notes (body TEXT)`},
		"legacy with an extra column":      {`CREATE TABLE runx_events (resource, aggregate_id, version, idempotency_key, event_ref, event_type, event_digest, event_json, committed_at, extra)`},
		"legacy marked by another program": {legacyUnscopedDDL[1], `PRAGMA application_id = 7`},
		"legacy of a newer revision":       {legacyUnscopedDDL[1], `PRAGMA user_version = 2`},
		"marked but partial":               {`PRAGMA application_id = 1381322328`, `PRAGMA user_version = 1`, `CREATE TABLE runx_store_events (x)`},
	} {
		t.Run(name, func(t *testing.T) {
			path := makeRawDB(t, stmts...)
			refused(t, migrateConfig(path, "tenant://acme/board"), errcode.StoreSchemaUnrecognized)
		})
	}
	t.Run("not a database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "events.sqlite")
		os.WriteFile(path, []byte("runx_events are not here; this is a text file that is long enough to have a header.\n"), 0o644)
		refused(t, migrateConfig(path, "tenant://acme/board"), errcode.StoreSchemaUnrecognized)
	})
}

func TestMigrateRefusesNothingToMigrate(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "events.sqlite")
	os.WriteFile(empty, nil, 0o644)
	refused(t, migrateConfig(empty, "tenant://acme/board"), errcode.DataMigrationEmpty)

	refused(t, migrateConfig(filepath.Join(t.TempDir(), "missing.sqlite"), "tenant://acme/board"), errcode.DataMigrationDatabaseMissing)
	refused(t, migrateConfig(t.TempDir(), "tenant://acme/board"), errcode.DataMigrationDatabaseMissing)
}

func TestMigrateRefusesBadRequests(t *testing.T) {
	events := fixtureEvents([]*string{nil}, []string{"board_events"}, 1, 2)
	path := makeLegacyStore(t, false, events)
	for _, source := range []string{"", " tenant://padded", "tenant://bell\a"} {
		refused(t, migrateConfig(path, source), errcode.DataMigrationSourceInvalid)
	}
	cfg := migrateConfig(path, "tenant://acme/board")
	os.WriteFile(cfg.BackupPath, []byte("an earlier backup"), 0o600)
	refused(t, cfg, errcode.DataMigrationBackupExists)
	if raw, _ := os.ReadFile(cfg.BackupPath); string(raw) != "an earlier backup" {
		t.Fatal("an existing backup was overwritten")
	}
	cfg = migrateConfig(path, "tenant://acme/board")
	cfg.BackupPath = path
	refused(t, cfg, errcode.DataMigrationBackupExists)
}

// Another connection holding the legacy store keeps the migration out.
func TestMigrateRefusesABusyStore(t *testing.T) {
	path := makeLegacyStore(t, false, fixtureEvents([]*string{nil}, []string{"board_events"}, 1, 2))
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM runx_events`).Scan(&n); err != nil || n != 2 {
		t.Fatal(n, err)
	}
	refused(t, migrateConfig(path, "tenant://acme/board"), errcode.DataMigrationBusy)
}

// Legacy rows the current store could not hold are refused by stream and
// version before any backup is made.
func TestMigrateRefusesInconsistentLegacyRows(t *testing.T) {
	base := func() []fixtureEvent {
		return fixtureEvents([]*string{nil}, []string{"board_events"}, 1, 3)
	}
	cases := map[string]func([]fixtureEvent) []fixtureEvent{
		"a gap":                func(e []fixtureEvent) []fixtureEvent { return append(e[:1], e[2:]...) },
		"not starting at 1":    func(e []fixtureEvent) []fixtureEvent { return e[1:] },
		"a reused key":         func(e []fixtureEvent) []fixtureEvent { e[2].Idempotency = e[0].Idempotency; return e },
		"a body not an object": func(e []fixtureEvent) []fixtureEvent { e[1].JSON = `["posting"]`; return e },
		"a body not JSON":      func(e []fixtureEvent) []fixtureEvent { e[1].JSON = `{"type":`; return e },
		"an unusable type":     func(e []fixtureEvent) []fixtureEvent { e[1].JSON = `{"type":"has space"}`; return e },
		"a bad commit time":    func(e []fixtureEvent) []fixtureEvent { e[1].CommittedAt = "yesterday"; return e },
		"a key the store keeps out": func(e []fixtureEvent) []fixtureEvent {
			for i := range e {
				e[i].Key = "posting one"
			}
			return e
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			// The scoped variant: its legacy table declared no keys, so it
			// can hold what the current store refuses.
			path := makeLegacyStore(t, true, mutate(base()))
			refused(t, migrateConfig(path, "tenant://acme/board"), errcode.DataMigrationLegacyInconsistent)
		})
	}
	t.Run("a source that merges two streams", func(t *testing.T) {
		// A scoped row already under the source and an unscoped row given
		// it would become one stream with two events at version 1.
		events := fixtureEvents([]*string{ptr("tenant://acme/board"), nil}, []string{"board_events"}, 1, 1)
		events[1].Idempotency = "other"
		path := makeLegacyStore(t, true, events)
		refused(t, migrateConfig(path, "tenant://acme/board"), errcode.DataMigrationLegacyInconsistent)
	})
	t.Run("a version that is not an integer", func(t *testing.T) {
		path := makeRawDB(t, `CREATE TABLE runx_events (resource, aggregate_id, version, idempotency_key, event_ref, event_type, event_digest, event_json, committed_at)`,
			`INSERT INTO runx_events VALUES ('board_events', 'p', 'one', 'k', 'board_events:p:1', 'data.event', '', '{}', '2026-07-14T00:00:00Z')`)
		refused(t, migrateConfig(path, "tenant://acme/board"), errcode.DataMigrationLegacyInconsistent)
	})
}

// A legacy type that is not what the current definition derives is
// replaced, and counted.
func TestMigrateRetypesByTheCurrentDefinition(t *testing.T) {
	events := fixtureEvents([]*string{nil}, []string{"board_events"}, 1, 2)
	events[0].Type = "legacy.label"
	path := makeLegacyStore(t, false, events)
	proof, err := Migrate(context.Background(), migrateConfig(path, "tenant://acme/board"))
	if err != nil {
		t.Fatal(err)
	}
	if proof.Changes.RetypedEvents != 1 {
		t.Fatalf("changes: %+v", proof.Changes)
	}
	events[0].Type = "posting.created"
	readsLikeFixture(t, path, "tenant://acme/board", events)
}
