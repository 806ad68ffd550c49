package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noFileHolds fails if any file of the workspace's .runx (receipts, run
// records) holds s.
func noFileHolds(t *testing.T, w *workspace, s string) {
	t.Helper()
	filepath.Walk(filepath.Join(w.dir, ".runx"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if raw, _ := os.ReadFile(p); strings.Contains(string(raw), s) {
				t.Errorf("%s holds the provider's secret", p)
			}
		}
		return nil
	})
}

// A provider's answer carrying a field with a secret's name is refused
// before anything of it reaches a receipt or the run's record: a read
// fails provider_output_secret_refused; a write the provider did is never
// resent, its answer never recorded, and its readback settles it.
func TestProviderAnswerWithASecretFieldIsRefused(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	out, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if code != 0 {
		t.Fatalf("publish: %d %v", code, out)
	}

	f.mu.Lock()
	f.leakOn = map[string]bool{"GET": true}
	f.mu.Unlock()
	read, code := w.run("", nil, "skill", "./forge#read", "-i", "board=general", "-i", "id=p1", "--json")
	if code == 0 || str(read, "error", "code") != "provider_output_secret_refused" || !strings.Contains(str(read, "error", "message"), "/access_token") {
		t.Fatalf("read: %d %v", code, read)
	}
	noFileHolds(t, w, providerSecret)

	f.mu.Lock()
	f.leakOn = map[string]bool{"POST": true}
	f.mu.Unlock()
	out, _ = w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=again", "-i", "key=k2", "--json")
	if n, _ := f.writeCount(); n != 2 {
		t.Fatalf("the provider saw %d writes, want 2 (one each): %v", n, out)
	}
	if str(out, "outcome") != "completed" || str(out, "result", "title") != "again" {
		t.Fatalf("a write confirmed by its readback: %v", out)
	}
	if strings.Contains(toJSON(out), providerSecret) {
		t.Fatalf("the envelope holds the secret: %v", out)
	}
	noFileHolds(t, w, providerSecret)
}

// The same refusal on the path of a connector plugin: a third-party
// plugin's operation whose answer carries a secret its provider minted
// (runx never delivered it, so no scrubbing knows it) under a field named
// as a secret is refused whole, naming the field and never the value, and
// nothing of it reaches a receipt, the run's record or the envelope. The
// same operation answering without the field completes.
func TestConnectorPluginAnswerWithASecretFieldIsRefused(t *testing.T) {
	sum := sha256.Sum256([]byte("leaky grant g1")) // as cmd/runx/testdata/leaky mints it
	minted := "rt-" + hex.EncodeToString(sum[:12])
	w := newWorkspace(t, skillFiles("grant", `minimum_runx: 0.1.0
methods:
  open:
    inputs:
      leak: { type: boolean, required: true }
    steps:
      - id: open
        operation: leaky/grant.open
        inputs: { leak: $input.leak }
`))
	installLeaky(t, w)
	clean, code := w.run("", nil, "skill", "./grant", "-i", "leak=false", "--json")
	if code != 0 || str(clean, "outcome") != "completed" || str(clean, "result", "grant", "id") != "g1" {
		t.Fatalf("a clean answer: %d %v", code, clean)
	}
	leaked, code := w.run("", nil, "skill", "./grant", "-i", "leak=true", "--json")
	if code == 0 || str(leaked, "error", "code") != "provider_output_secret_refused" || !strings.Contains(str(leaked, "error", "message"), "/grant/refresh_token") {
		t.Fatalf("an answer holding a secret's field: %d %v", code, leaked)
	}
	if strings.Contains(toJSON(leaked), minted) {
		t.Fatalf("the envelope holds the provider's secret: %v", leaked)
	}
	noFileHolds(t, w, minted)
}
