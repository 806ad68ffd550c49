package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
)

// The governed-data-plane walkthrough, verbatim: the same operator-inbox
// graphs record and read back a journal whether the logical source is bound
// to SQLite, Redis or PostgreSQL; only the binding changes.
func TestOperatorInboxRunsUnchangedAcrossBindings(t *testing.T) {
	redis := testserver.StartRedis(t)
	pg := testserver.StartPostgres(t)
	repo, _ := filepath.Abs("../..")
	w := newWorkspace(t, nil)
	for _, d := range []string{"skills"} {
		if err := os.Symlink(filepath.Join(repo, d), filepath.Join(w.dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	resources := `"resources": {"operator_inbox_scans": {"kind": "event_stream", "partition_key": "aggregate_id"}, "operator_inbox_actions": {"kind": "event_stream", "partition_key": "aggregate_id"}}`
	bindings := fmt.Sprintf(`{"data_sources": {
	  "tenant://dogfood/sqlite/inbox-1": {"adapter": "data.sqlite", "database_path": ".runx/data/inbox-1.sqlite", %s},
	  "tenant://dogfood/redis/inbox-1": {"adapter": "data.redis", "endpoint": %q, "key_prefix": "runx:dogfood:inbox-1", "profile": "dogfood_redis", %s},
	  "tenant://dogfood/postgres/inbox-1": {"adapter": "data.postgres", "endpoint": %q, "profile": "dogfood_pg", %s},
	  "tenant://acme/board": {"adapter": "data.postgres", "endpoint": %q, "profile": "dogfood_pg", "resources": {"board_events": {"kind": "event_stream", "partition_key": "aggregate_id"}}}
	}}`, resources, redis.Endpoint(), resources,
		"postgres://"+pg.User+"@"+pg.Host+":"+strconv.Itoa(pg.Port)+"/"+pg.Database, resources,
		"postgres://"+pg.User+"@"+pg.Host+":"+strconv.Itoa(pg.Port)+"/"+pg.Database)
	os.MkdirAll(filepath.Join(w.dir, ".runx"), 0o755)
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "data-sources.json"), []byte(bindings), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"RUNX_DATA_SOURCES=.runx/data-sources.json", "RUNX_DATA_PROFILE_DOGFOOD_PG_PASSWORD=" + pg.Password, "RUNX_DATA_PROFILE_DOGFOOD_REDIS_PASSWORD=" + redis.Password}

	for _, provider := range []string{"sqlite", "redis", "postgres"} {
		ref := "tenant://dogfood/" + provider + "/inbox-1"
		out, code := w.run("", env, "skill", "skills/operator-inbox", "record_scan_page",
			"-R", ".runx/receipts",
			"-i", "data_source_ref="+ref,
			"--input-json", "expected_version=0",
			"-i", "observed_at=2026-07-14T00:00:00.000Z",
			"--input-json", `scan={"scan_id":"scan-demo-1","provider":"demo","query_digest":"sha256:1111111111111111111111111111111111111111111111111111111111111111","page_index":1,"status":"complete","started_at":"2026-07-13T23:59:00.000Z"}`,
			"--input-json", "messages=[]",
			"-j")
		if code != 0 || str(out, "outcome") != "completed" || str(out, "result", "data_operation_result", "provider") != provider {
			t.Fatalf("%s: record_scan_page: %d %v", provider, code, out)
		}
		read, code := w.run("", env, "skill", "skills/data-store", "read_events",
			"-R", ".runx/receipts",
			"-i", "data_source_ref="+ref,
			"-i", "resource=operator_inbox_scans",
			"-i", "aggregate_id=sha256:1111111111111111111111111111111111111111111111111111111111111111",
			"--input-json", "limit=10",
			"-j")
		if code != 0 || str(read, "result", "data_operation_result", "events", "0", "event_type") != "operator_inbox.scan_page" {
			t.Fatalf("%s: read_events: %d %v", provider, code, read)
		}
		// Recording the same page again appends once: the key is the transition's.
		again, _ := w.run("", env, "skill", "skills/operator-inbox", "record_scan_page",
			"-i", "data_source_ref="+ref, "--input-json", "expected_version=0", "-i", "observed_at=2026-07-14T00:00:00.000Z",
			"--input-json", `scan={"scan_id":"scan-demo-1","provider":"demo","query_digest":"sha256:1111111111111111111111111111111111111111111111111111111111111111","page_index":1,"status":"complete","started_at":"2026-07-13T23:59:00.000Z"}`,
			"--input-json", "messages=[]", "-j")
		if get(again, "result", "data_operation_result", "after_version") != 1.0 {
			t.Fatalf("%s: a recorded transition recorded again must return the committed result: %v", provider, again)
		}
	}

	// The walkthrough's data-store command, verbatim, by its bare name.
	out, code := w.run("", env, "skill", "data-store", "append_event",
		"-i", "data_source_ref=tenant://acme/board",
		"-i", "resource=board_events",
		"-i", "aggregate_id=posting-123",
		"--input-json", "expected_version=0",
		"-i", "idempotency_key=posting-123:claim:agent-9",
		"--input-json", `event={"type":"posting.claimed","payload":{"actor":"agent-9"}}`,
		"--json")
	if code != 0 || str(out, "result", "data_operation_result", "event_ref") != "board_events:posting-123:1" || str(out, "result", "data_operation_result", "provider") != "postgres" {
		t.Fatalf("append_event: %d %v", code, out)
	}
	// A stale expected_version is refused with the current version named.
	stale, code := w.run("", env, "skill", "data-store", "append_event",
		"-i", "data_source_ref=tenant://acme/board", "-i", "resource=board_events", "-i", "aggregate_id=posting-123",
		"--input-json", "expected_version=0", "-i", "idempotency_key=posting-123:release:agent-9",
		"--input-json", `event={"type":"posting.released"}`, "--json")
	if code != 1 || str(stale, "error", "code") != "version_conflict" {
		t.Fatalf("stale append: %d %v", code, stale)
	}
	// Without the profile's credential the source is refused, naming how to give one.
	noCred, _ := w.run("", []string{"RUNX_DATA_SOURCES=.runx/data-sources.json"}, "skill", "data-store", "read_projection",
		"-i", "data_source_ref=tenant://acme/board", "-i", "resource=board_events", "-i", "aggregate_id=posting-123", "--json")
	if str(noCred, "error", "code") != "credential_missing" {
		t.Fatalf("missing credential: %v", noCred)
	}
}
