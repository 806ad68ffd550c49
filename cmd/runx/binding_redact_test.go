package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A binding's resources may declare secret and private event fields: the
// binding loads, and the store redacts those fields before anything is
// stored, digested or read back.
func TestBindingSecretAndPrivateFieldsAreRedacted(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	w := newWorkspace(t, nil)
	if err := os.Symlink(filepath.Join(repo, "skills"), filepath.Join(w.dir, "skills")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.dir, ".runx"), 0o755)
	bindings := `{"data_sources": {"tenant://acme/people": {"adapter": "data.sqlite", "database_path": ".runx/data/people.sqlite",
	  "resources": {"people": {"kind": "event_stream", "partition_key": "aggregate_id", "secret": ["/payload/ssn"], "private": ["/payload/email"]}}}}}`
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "data-sources.json"), []byte(bindings), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := w.run("", nil, "skill", "data-store", "append_event",
		"-i", "data_source_ref=tenant://acme/people", "-i", "resource=people", "-i", "aggregate_id=p-1",
		"--input-json", "expected_version=0", "-i", "idempotency_key=p-1:create",
		"--input-json", `event={"type":"person.created","payload":{"name":"Ada","ssn":"123-45-6789","email":"ada@example.com"}}`,
		"--json")
	if code != 0 || str(out, "outcome") != "completed" {
		t.Fatalf("append_event: %d %v", code, out)
	}
	read, code := w.run("", nil, "skill", "data-store", "read_events",
		"-i", "data_source_ref=tenant://acme/people", "-i", "resource=people", "-i", "aggregate_id=p-1",
		"--input-json", "limit=10", "--json")
	if code != 0 {
		t.Fatalf("read_events: %d %v", code, read)
	}
	raw, _ := json.Marshal(read)
	for _, leaked := range []string{"123-45-6789", "ada@example.com"} {
		if strings.Contains(string(raw), leaked) {
			t.Fatalf("a declared field's value was read back: %s", raw)
		}
	}
	for _, want := range []string{"[redacted:secret]", "[redacted:private]", "Ada"} {
		if !strings.Contains(string(raw), want) {
			t.Fatalf("the read lacks %q: %s", want, raw)
		}
	}
	db, _ := os.ReadFile(filepath.Join(w.dir, ".runx", "data", "people.sqlite"))
	wal, _ := os.ReadFile(filepath.Join(w.dir, ".runx", "data", "people.sqlite-wal"))
	if len(db) == 0 || strings.Contains(string(db)+string(wal), "123-45-6789") || strings.Contains(string(db)+string(wal), "ada@example.com") {
		t.Fatal("the store file must exist and never hold a declared field's value")
	}
}
