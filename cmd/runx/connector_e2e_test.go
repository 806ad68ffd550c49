package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// receiptOf reads one receipt's body from the workspace's store.
func receiptOf(t *testing.T, w *workspace, id string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(w.dir, ".runx", "receipts", strings.ReplaceAll(id, ":", "-")+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// stepReceipt is the receipt of a sealed run's first step.
func stepReceipt(t *testing.T, w *workspace, run map[string]any) map[string]any {
	t.Helper()
	return receiptOf(t, w, str(run, "trace", "steps", "0", "receipt_id"))
}

// A write goes once under its provider key, is confirmed by its readback
// and seals with the connector's digests; a read goes through the same
// plugin; the credential reaches the provider and nothing runx printed.
func TestConnectorWriteIsConfirmedByReadback(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	out, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if code != 0 || str(out, "outcome") != "completed" {
		t.Fatalf("publish: %d %v", code, out)
	}
	if str(out, "result", "id") != "p1" || str(out, "result", "title") != "hello" {
		t.Fatalf("result: %v", out["result"])
	}
	n, keys := f.writeCount()
	if n != 1 || !strings.HasPrefix(keys[0], "runx-") {
		t.Fatalf("the provider saw %d writes under %q", n, keys)
	}
	rec := stepReceipt(t, w, out)
	cx := get(rec, "body", "extra", "connector")
	if str(cx, "finality") != "confirmed" || str(cx, "provider_key") != keys[0] || str(cx, "target") != "boards/general" {
		t.Fatalf("receipt connector: %v", cx)
	}
	for _, k := range []string{"manifest_digest", "connector_digest", "operation_digest", "body_digest"} {
		if !strings.HasPrefix(str(cx, k), "sha256:") {
			t.Fatalf("receipt connector %s: %v", k, cx)
		}
	}
	read, code := w.run("", nil, "skill", "./forge#read", "-i", "board=general", "-i", "id=p1", "--json")
	if code != 0 || str(read, "result", "title") != "hello" {
		t.Fatalf("read: %d %v", code, read)
	}
	filepath.Walk(filepath.Join(w.dir, ".runx"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if raw, _ := os.ReadFile(p); strings.Contains(string(raw), f.token) {
				t.Errorf("%s holds the credential", p)
			}
		}
		return nil
	})
}
