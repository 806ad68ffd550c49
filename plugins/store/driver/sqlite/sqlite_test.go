package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

var board = driver.Resource{Name: "board_events", Kind: driver.KindEventStream}

func stream(key string) driver.Stream {
	return driver.Stream{Source: "tenant://acme/board", Resource: board, Key: key}
}

func open(t *testing.T, path string) *Driver {
	t.Helper()
	d, err := Open(context.Background(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// makeDB creates a database file with raw statements, as another program or
// an older runx would have.
func makeDB(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.sqlite")
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

const legacyUnscoped = `CREATE TABLE runx_events (resource TEXT NOT NULL, aggregate_id TEXT NOT NULL, version INTEGER NOT NULL,
  idempotency_key TEXT NOT NULL, event_ref TEXT NOT NULL, event_type TEXT NOT NULL, event_digest TEXT NOT NULL,
  event_json TEXT NOT NULL, committed_at TEXT NOT NULL, PRIMARY KEY (resource, aggregate_id, version))`

const legacyRow = `INSERT INTO runx_events VALUES ('board_events', 'posting-1', 1, 'k1', 'board_events:posting-1:1',
  'posting.created', 'sha256:00', '{"type":"posting.created"}', '2026-07-14T00:00:00.000Z')`

// A file the store does not own is refused and left byte-identical.
func TestOpenRefusesForeignFiles(t *testing.T) {
	cases := []struct {
		name  string
		stmts []string
		state State
		code  driver.Code
	}{
		{"legacy unscoped", []string{legacyUnscoped, legacyRow}, StateLegacyUnscoped, errcode.StoreNeedsMigration},
		{"legacy scoped with heads and ledger", []string{
			`CREATE TABLE runx_events (data_source_ref TEXT, resource TEXT, aggregate_id TEXT, version INTEGER, idempotency_key TEXT,
			  event_ref TEXT, event_type TEXT, event_digest TEXT, event_json TEXT, committed_at TEXT)`,
			`CREATE TABLE runx_stream_heads (data_source_ref TEXT, resource TEXT, aggregate_id TEXT, version INTEGER, event_ref TEXT,
			  event_type TEXT, event_digest TEXT, idempotency_key TEXT, event_json TEXT, committed_at TEXT, projection_digest TEXT)`,
			`CREATE TABLE runx_data_store_migrations (version INTEGER, applied_at TEXT)`,
			`PRAGMA user_version = 1`,
		}, StateLegacyScoped, errcode.StoreNeedsMigration},
		{"another program", []string{`CREATE TABLE notes (body TEXT)`, `INSERT INTO notes VALUES ('x')`}, StateUnrecognized, errcode.StoreSchemaUnrecognized},
		{"legacy beside other tables", []string{legacyUnscoped, `CREATE TABLE notes (body TEXT)`}, StateUnrecognized, errcode.StoreSchemaUnrecognized},
		{"legacy with an extra column", []string{`CREATE TABLE runx_events (resource TEXT, aggregate_id TEXT, version INTEGER,
		  idempotency_key TEXT, event_ref TEXT, event_type TEXT, event_digest TEXT, event_json TEXT, committed_at TEXT, extra TEXT)`},
			StateUnrecognized, errcode.StoreSchemaUnrecognized},
		{"marked but partial", []string{`PRAGMA application_id = 1381322328`, `PRAGMA user_version = 1`, `CREATE TABLE t (x)`},
			StateUnrecognized, errcode.StoreSchemaUnrecognized},
		{"a newer revision", append(append([]string{}, createSchema[:2]...), `PRAGMA application_id = 1381322328`, `PRAGMA user_version = 2`),
			StateUnrecognized, errcode.StoreSchemaUnrecognized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := makeDB(t, c.stmts...)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Open(context.Background(), Config{Path: path})
			if driver.CodeOf(err) != c.code {
				t.Fatalf("open: %v, want %s", err, c.code)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Fatal("a refused file was modified")
			}
			db, _ := sql.Open("sqlite", path+"?_query_only=1")
			defer db.Close()
			if state, err := Inspect(context.Background(), db); err != nil || state != c.state {
				t.Fatalf("inspect: %s %v, want %s", state, err, c.state)
			}
		})
	}
}

func TestReopenCurrentStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "store.sqlite")
	d := open(t, path)
	r, err := d.Append(context.Background(), driver.AppendRequest{Stream: stream("k"), IdempotencyKey: "a", Event: []byte(`{"type":"t"}`)})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d2 := open(t, path)
	h, err := d2.InspectKey(context.Background(), driver.InspectRequest{Stream: stream("k")})
	if err != nil || h.Version != 1 || h.ProjectionDigest != r.ProjectionDigest {
		t.Fatalf("after reopening: %+v %v", h, err)
	}
	var sync int
	if err := d2.write.QueryRowContext(context.Background(), `PRAGMA synchronous`).Scan(&sync); err != nil || sync != 2 {
		t.Fatalf("the default durability is FULL (2), got %d %v", sync, err)
	}
	var mode string
	if err := d2.write.QueryRowContext(context.Background(), `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v", mode, err)
	}
}

func TestConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, cfg := range []Config{
		{},
		{Path: ":memory:"},
		{Path: filepath.Join(dir, "a?b")},
		{Path: "file:" + filepath.Join(dir, "x")},
		{Path: filepath.Join(dir, "x"), Synchronous: "OFF"},
		{Path: filepath.Join(dir, "x"), Limits: driver.Limits{MaxPageEvents: 501}},
	} {
		if _, err := Open(context.Background(), cfg); driver.CodeOf(err) != errcode.InvalidConfig {
			t.Errorf("%+v: %v, want invalid_config", cfg, err)
		}
	}
}

// Several processes (here, drivers) claiming one new file create the schema
// once, and their appends to one stream interleave without a gap or a lost
// update: BEGIN IMMEDIATE serializes writers across connections.
func TestSharedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.sqlite")
	const drivers, appends = 3, 40
	ds := make([]*Driver, drivers)
	var wg sync.WaitGroup
	errs := make(chan error, drivers)
	for i := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := Open(context.Background(), Config{Path: path, Synchronous: SynchronousNormal})
			ds[i] = d
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent open: %v", err)
		}
	}
	for _, d := range ds {
		t.Cleanup(func() { d.Close() })
	}
	errs = make(chan error, drivers)
	for i, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range appends {
				if _, err := d.Append(context.Background(), driver.AppendRequest{Stream: stream("shared"),
					IdempotencyKey: fmt.Sprintf("d%d-%d", i, n), Event: []byte(`{"type":"t"}`)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append through another connection: %v", err)
	}
	page, err := ds[0].Read(context.Background(), driver.ReadRequest{Stream: stream("shared"), AfterVersion: new(int64), Limit: 500})
	if err != nil || len(page.Events) != drivers*appends || page.Version != drivers*appends {
		t.Fatalf("%d events at version %d: %v", len(page.Events), page.Version, err)
	}
	digests := make([]string, len(page.Events))
	for i, e := range page.Events {
		digests[i] = e.Digest
	}
	if p, _ := driver.RecomputeProjection(digests); p != page.ProjectionDigest {
		t.Fatal("the projection digest does not match a recomputation")
	}
}
