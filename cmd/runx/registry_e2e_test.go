package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The registry end to end, every part a real process: `runx registry
// serve` on loopback, its key trusted with `runx registry trust add`, a
// skill published with `runx registry publish`, found with `search`,
// installed (then unchanged), run from its installed copy, and refused with
// nothing run once one installed byte is changed; a project that trusts
// the key for another namespace installs nothing.
func TestRegistryEndToEnd(t *testing.T) {
	w := newWorkspace(t, nil)
	marker := filepath.Join(w.dir, "ran")
	files := map[string]string{
		"hello/SKILL.md": "---\nname: hello\ndescription: Say hello from the registry.\nversion: 1.0.0\n---\n\n# hello\n\nSays hello.\n",
		"hello/run.yaml": `minimum_runx: 0.1.0
methods:
  run:
    description: Say hello.
    steps:
      - id: say
        tool: { command: sh, args: ["-c", "echo ran >> ` + marker + `; printf '{\"message\":\"hello\"}'"] }
`,
	}
	for name, body := range files {
		path := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	out, err := w.cmd("", nil, "registry", "token", "create", "--data", data, "--namespace", "acme").Output()
	if err != nil {
		t.Fatal(err)
	}
	token := "RUNX_REGISTRY_TOKEN=" + strings.TrimSpace(string(out))
	s := startRegistry(t, w, data)
	reg := "RUNX_REGISTRY_URL=" + s.url

	if doc, code := w.run("", nil, "registry", "trust", "add", "--registry", s.url, "--key", s.key, "--namespace", "acme", "--json"); code != 0 {
		t.Fatalf("trust add: %d %v", code, doc)
	}
	doc, code := w.run("", []string{token, reg}, "registry", "publish", "./hello", "--json")
	if code != 0 || doc["ref"] != "acme/hello@1.0.0" || !strings.HasPrefix(doc["content_digest"].(string), "sha256:") {
		t.Fatalf("publish: %d %v", code, doc)
	}
	if doc, code := w.run("", []string{token, reg}, "registry", "publish", "./hello", "--json"); code == 0 || get(doc, "error", "code") != "registry_version_exists" {
		t.Fatalf("republish: %d %v", code, doc)
	}
	doc, code = w.run("", []string{reg}, "registry", "search", "hello", "--json")
	results, _ := doc["results"].([]any)
	if code != 0 || len(results) != 1 || get(results[0], "ref") != "acme/hello@1.0.0" || get(results[0], "trust_tier") != "community" {
		t.Fatalf("search: %d %v", code, doc)
	}

	for _, want := range []string{"installed", "unchanged"} {
		doc, code = w.run("", []string{reg}, "registry", "install", "acme/hello@1.0.0", "--json")
		installed, _ := doc["installed"].([]any)
		if code != 0 || len(installed) != 1 || get(installed[0], "status") != want {
			t.Fatalf("install, want %s: %d %v", want, code, doc)
		}
	}
	dir := filepath.Join(w.dir, ".runx", "added-skills", "acme", "hello", "1.0.0")
	if _, err := os.Stat(filepath.Join(dir, "signature.json")); err != nil {
		t.Fatalf("no signed record installed: %v", err)
	}

	doc, code = w.run("", []string{reg}, "skill", "acme/hello@1.0.0", "--json")
	if code != 0 || doc["outcome"] != "completed" || get(doc, "result", "message") != "hello" {
		t.Fatalf("run: %d %v", code, doc)
	}
	if b, _ := os.ReadFile(marker); strings.Count(string(b), "ran") != 1 {
		t.Fatalf("the step ran %q", b)
	}

	// One byte changed in the installed copy: refused, nothing runs.
	runYAML := filepath.Join(dir, "run.yaml")
	b, err := os.ReadFile(runYAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(runYAML, []byte(strings.Replace(string(b), "Say hello.", "Say hellO.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, code = w.run("", []string{reg}, "skill", "acme/hello@1.0.0", "--json")
	if code == 0 || get(doc, "error", "code") != "registry_package_altered" {
		t.Fatalf("run of an altered copy: %d %v", code, doc)
	}
	if b, _ := os.ReadFile(marker); strings.Count(string(b), "ran") != 1 {
		t.Fatalf("an altered copy ran: %q", b)
	}

	// The registry's key trusted only for another namespace: nothing installed.
	other := newWorkspace(t, nil)
	if _, code := other.run("", nil, "registry", "trust", "add", "--registry", s.url, "--key", s.key, "--namespace", "someone-else", "--json"); code != 0 {
		t.Fatal("trust add for another namespace")
	}
	doc, code = other.run("", []string{reg}, "registry", "install", "acme/hello@1.0.0", "--json")
	if code == 0 || get(doc, "error", "code") != "registry_key_untrusted" {
		t.Fatalf("install under a key for another namespace: %d %v", code, doc)
	}
	if _, err := os.Stat(filepath.Join(other.dir, ".runx", "added-skills")); err == nil {
		t.Fatal("a refused install wrote added-skills")
	}
}
