package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/runxhq/runx/sdk/store/driver"
)

func migrateConfig(path, source string) MigrateConfig {
	backup := filepath.Join(filepath.Dir(path), "events.backup.sqlite")
	return MigrateConfig{Path: path, BackupPath: backup, Source: source,
		DatabaseName: "data/events.sqlite", BackupName: "data/events.backup.sqlite", BusyTimeout: 200 * time.Millisecond}
}

func TestMigrateLegacyUnscoped(t *testing.T) {
	events := fixtureEvents([]*string{nil}, []string{"board_events", "inbox_scans"}, 3, 7)
	path := makeLegacyStore(t, false, events)
	cfg := migrateConfig(path, "tenant://acme/board")
	original := fileSHA(t, path)

	proof, err := Migrate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkMigratedProof(t, proof, cfg, StateLegacyUnscoped, 42, 6, 42)
	if proof.Changes.RedigestedEvents == 0 || proof.Changes.RetypedEvents != 0 {
		t.Fatalf("bodies written non-canonically are re-digested, types kept: %+v", proof.Changes)
	}
	if got := proof.Changes.DroppedTables; len(got) != 2 || got[0] != "runx_data_store_migrations" || got[1] != "runx_stream_heads" {
		t.Fatalf("dropped tables: %v", got)
	}
	// The backup is the original's content, still in the legacy schema.
	if fileSHA(t, cfg.BackupPath) != proof.Backup.Digest {
		t.Fatal("the backup's bytes are not the ones the proof names")
	}
	if look := inspectPath(t, cfg.BackupPath); look.State != StateLegacyUnscoped || look.Fingerprint != proof.Before.SchemaFingerprint {
		t.Fatalf("backup: %+v", look)
	}
	if fileSHA(t, path) == original {
		t.Fatal("the database was not replaced")
	}
	readsLikeFixture(t, path, "tenant://acme/board", events)
}

func TestMigrateLegacyScoped(t *testing.T) {
	events := fixtureEvents([]*string{ptr("tenant://acme/a"), nil, ptr("tenant://acme/b")}, []string{"board_events"}, 2, 5)
	// Rows written before sources existed hold NULL, or an empty string.
	events = append(events, fixtureEvents([]*string{ptr("")}, []string{"inbox_scans"}, 1, 3)...)
	path := makeLegacyStore(t, true, events)
	cfg := migrateConfig(path, "tenant://acme/legacy")

	proof, err := Migrate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkMigratedProof(t, proof, cfg, StateLegacyScoped, 33, 7, 13)
	if proof.Before.UserVersion != 1 {
		t.Fatalf("before: %+v", proof.Before)
	}
	readsLikeFixture(t, path, "tenant://acme/legacy", events)
}

// A migrated store migrated again is proven current and not touched, and
// the proof is the same document each time.
func TestMigrateIsIdempotent(t *testing.T) {
	path := makeLegacyStore(t, false, fixtureEvents([]*string{nil}, []string{"board_events"}, 2, 4))
	cfg := migrateConfig(path, "tenant://acme/board")
	first, err := Migrate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	migrated := fileSHA(t, path)
	cfg.BackupPath, cfg.BackupName = filepath.Join(filepath.Dir(path), "again.sqlite"), "data/again.sqlite"
	var digests []string
	for range 2 {
		again, err := Migrate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if again.Status != ProofCurrent || again.Backup != nil || again.Verification.Readback != nil {
			t.Fatalf("current proof: %+v", again)
		}
		if again.Before != again.After || again.After.ContentDigest != first.After.ContentDigest || again.After.Events != 8 {
			t.Fatalf("a current proof proves the migrated content: %+v vs %+v", again.After, first.After)
		}
		checkResultDigest(t, again)
		digests = append(digests, again.ResultDigest)
	}
	if digests[0] != digests[1] {
		t.Fatal("a current proof must be the same document every time")
	}
	if fileSHA(t, path) != migrated {
		t.Fatal("proving a current store changed it")
	}
	if exists(cfg.BackupPath) {
		t.Fatal("a current store gets no backup")
	}
}

// A migrated stream is a working stream: it continues at its version with
// its rebuilt projection.
func TestMigratedStreamAppends(t *testing.T) {
	path := makeLegacyStore(t, false, fixtureEvents([]*string{nil}, []string{"board_events"}, 1, 3))
	if _, err := Migrate(context.Background(), migrateConfig(path, "tenant://acme/board")); err != nil {
		t.Fatal(err)
	}
	d := open(t, path)
	s := stream("posting-0")
	three := int64(3)
	res, err := d.Append(context.Background(), driver.AppendRequest{Stream: s, ExpectedVersion: &three, IdempotencyKey: "k4", Event: json.RawMessage(`{"type":"posting.closed"}`)})
	if err != nil {
		t.Fatal(err)
	}
	page, err := d.Read(context.Background(), driver.ReadRequest{Stream: s, AfterVersion: new(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	var digests []string
	for _, e := range page.Events {
		digests = append(digests, e.Digest)
	}
	want, _ := driver.RecomputeProjection(digests)
	if res.AfterVersion != 4 || res.ProjectionDigest != want {
		t.Fatalf("append after migration: %+v, want projection %s", res, want)
	}
	// A replay of a migrated event's key returns the migrated event.
	one := int64(0)
	replay, err := d.Append(context.Background(), driver.AppendRequest{Stream: s, ExpectedVersion: &one, IdempotencyKey: "board_events:posting-0:1",
		Event: json.RawMessage(`{"type":"posting.created","payload":{"a":"café 1","z":1}}`)})
	if err != nil || !replay.Replayed || replay.AfterVersion != 1 {
		t.Fatalf("replay of a migrated key: %+v %v", replay, err)
	}
}

func checkMigratedProof(t *testing.T, p *Proof, cfg MigrateConfig, state State, events, streams, assigned int64) {
	t.Helper()
	if p.Schema != ProofSchema || p.Status != ProofMigrated || p.Database != cfg.DatabaseName || p.Source != cfg.Source {
		t.Fatalf("proof header: %+v", p)
	}
	if p.Backup == nil || p.Backup.Path != cfg.BackupName || !driver.ValidDigest(p.Backup.Digest) || p.Backup.ContentDigest != p.Before.ContentDigest {
		t.Fatalf("backup: %+v", p.Backup)
	}
	b, a := p.Before, p.After
	if b.State != state || b.SchemaVersion != SchemaVersionLegacy || b.ApplicationID != 0 || b.ContentDefinition != LegacyContentDefinition ||
		b.Events != events || b.Streams != streams || !driver.ValidDigest(b.ContentDigest) || !driver.ValidDigest(b.SchemaFingerprint) {
		t.Fatalf("before: %+v", b)
	}
	if a.State != StateCurrent || a.SchemaVersion != SchemaVersionCurrent || a.ApplicationID != ApplicationID || a.UserVersion != SchemaVersion ||
		a.ContentDefinition != ContentDefinition || a.Events != events || a.Streams != streams || !driver.ValidDigest(a.ContentDigest) {
		t.Fatalf("after: %+v", a)
	}
	if p.Changes.AssignedEvents != assigned {
		t.Fatalf("assigned %d, want %d", p.Changes.AssignedEvents, assigned)
	}
	want := PassProof{Events: events, Streams: streams, ContentDigest: a.ContentDigest}
	if p.Verification.Reopened != want || p.Verification.Readback == nil || *p.Verification.Readback != want {
		t.Fatalf("verification: %+v", p.Verification)
	}
	checkResultDigest(t, p)
}

// checkResultDigest recomputes result_digest with an independent RFC 8785
// implementation.
func checkResultDigest(t *testing.T, p *Proof) {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.Unmarshal(raw, &doc)
	delete(doc, "result_digest")
	raw, _ = json.Marshal(doc)
	canonical, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canonical)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != p.ResultDigest {
		t.Fatalf("result_digest %s, recomputed %s", p.ResultDigest, got)
	}
}

func inspectPath(t *testing.T, path string) schemaLook {
	t.Helper()
	look, err := lookAtFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return look
}

// readsLikeFixture reads every fixture stream back through the driver and
// holds each event to the legacy row it came from, recomputing what the
// current schema derives with independent code (gowebpki/jcs, SHA-256, the
// projection fold).
func readsLikeFixture(t *testing.T, path, source string, events []fixtureEvent) {
	t.Helper()
	d := open(t, path)
	type key struct{ src, res, agg string }
	streams := map[key][]fixtureEvent{}
	var order []key
	for _, e := range events {
		src := source
		if e.Source != nil && *e.Source != "" {
			src = *e.Source
		}
		k := key{src, e.Resource, e.Key}
		if _, ok := streams[k]; !ok {
			order = append(order, k)
		}
		streams[k] = append(streams[k], e)
	}
	for _, k := range order {
		want := streams[k]
		s := driver.Stream{Source: k.src, Resource: driver.Resource{Name: k.res, Kind: driver.KindEventStream}, Key: k.agg}
		page, err := d.Read(context.Background(), driver.ReadRequest{Stream: s, AfterVersion: new(int64(0)), Limit: 500})
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if len(page.Events) != len(want) || page.Version != int64(len(want)) {
			t.Fatalf("%v: read %d events at version %d, want %d", k, len(page.Events), page.Version, len(want))
		}
		projection := driver.GenesisProjection
		for i, got := range page.Events {
			w := want[i]
			canonical, err := jcs.Transform([]byte(w.JSON))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(canonical)
			digest := "sha256:" + hex.EncodeToString(sum[:])
			projection, _ = driver.NextProjection(projection, digest)
			at, _ := time.Parse(time.RFC3339Nano, w.CommittedAt)
			if string(got.Data) != string(canonical) || got.Digest != digest || got.Type != w.Type || got.Version != w.Version ||
				got.IdempotencyKey != w.Idempotency || !got.CommittedAt.Equal(at.Truncate(time.Millisecond)) || got.ProjectionDigest != projection {
				t.Fatalf("%v version %d: read %+v (data %s), want %+v", k, w.Version, got, got.Data, w)
			}
		}
		if page.ProjectionDigest != projection {
			t.Fatalf("%v: head projection %s, want %s", k, page.ProjectionDigest, projection)
		}
	}
}

func TestMigrateReadsBackSource(t *testing.T) {
	// An unscoped store read under a source it was not given has nothing.
	path := makeLegacyStore(t, false, fixtureEvents([]*string{nil}, []string{"board_events"}, 1, 2))
	if _, err := Migrate(context.Background(), migrateConfig(path, "tenant://acme/board")); err != nil {
		t.Fatal(err)
	}
	d := open(t, path)
	h, err := d.InspectKey(context.Background(), driver.InspectRequest{Stream: driver.Stream{Source: "tenant://other", Resource: board, Key: "posting-0"}})
	if err != nil || h.Version != 0 {
		t.Fatalf("another source: %+v %v", h, err)
	}
	// Nothing is left beside the store but its backup and SQLite's own files.
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".sqlite" && e.Name() != "events.sqlite-shm" && e.Name() != "events.sqlite-wal" {
			t.Fatalf("left behind: %s", e.Name())
		}
	}
}

// A legacy store whose last events are still in its WAL (its writer died
// before a checkpoint) is migrated whole: the backup and the new store both
// hold the WAL's events, and no WAL is left to be replayed into the new file.
func TestMigrateLegacyStoreWithWALContent(t *testing.T) {
	events := fixtureEvents([]*string{nil}, []string{"board_events"}, 2, 3)
	src := makeLegacyStore(t, false, events[:3])
	db, err := sql.Open("sqlite", src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, e := range events[3:] {
		if _, err := db.Exec(`INSERT INTO runx_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.Resource, e.Key, e.Version, e.Idempotency,
			"ref", e.Type, "sha256:00", e.JSON, e.CommittedAt); err != nil {
			t.Fatal(err)
		}
	}
	// Copy the files as a crash would leave them, the writer still open.
	path := filepath.Join(t.TempDir(), "events.sqlite")
	for _, suffix := range []string{"", "-wal"} {
		raw, err := os.ReadFile(src + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(raw) == 0 {
			t.Fatal("the fixture's WAL is empty")
		}
		os.WriteFile(path+suffix, raw, 0o644)
	}
	cfg := migrateConfig(path, "tenant://acme/board")
	proof, err := Migrate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if proof.Before.Events != 6 || proof.After.Events != 6 {
		t.Fatalf("the WAL's events were not migrated: %+v", proof.After)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatal("a WAL with content was left beside the migrated store")
	}
	readsLikeFixture(t, path, "tenant://acme/board", events)
}
