package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's first command, run exactly as written from the repository
// root, runs hello-world end to end; its receipt verifies.
func TestReadmeQuickstartRuns(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	f, err := os.Open(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var command string
	for s := bufio.NewScanner(f); s.Scan(); {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "go run ./cmd/runx skill examples/hello-world") {
			command = line
			break
		}
	}
	if command == "" {
		t.Fatal("README.md has no `go run ./cmd/runx skill examples/hello-world` quickstart line")
	}
	home, project := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "RUNX_HOME="+home, "RUNX_PROJECT_DIR="+project)
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Env = repo, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("the quickstart printed no single JSON document: %v\n%s", err, out)
	}
	result, _ := doc["result"].(map[string]any)
	if doc["status"] != "sealed" || doc["outcome"] != "completed" || result["message"] != "hello" {
		t.Fatalf("quickstart envelope: %s", out)
	}
	verify := exec.Command(filepath.Join(binDir, "runx"), "verify", doc["receipt_id"].(string), "--json")
	verify.Dir, verify.Env = repo, env
	vout, err := verify.Output()
	if err != nil || !strings.Contains(string(vout), `"status": "verified"`) {
		t.Fatalf("the quickstart's receipt does not verify: %v\n%s", err, vout)
	}
}
