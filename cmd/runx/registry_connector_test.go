package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolySkill runs the tool its package carries: ./tool.sh, which runs only
// while it keeps its executable bit.
const toolySkill = `minimum_runx: 0.1.0
methods:
  say:
    description: Say what the tool says.
    steps:
      - id: say
        tool: { command: ./tool.sh }
        outputs:
          said: { type: string }
`

// Against a real `runx registry serve` on loopback: a skill published with
// an executable tool is installed with the tool still executable, and runs
// it; a connector published on its own is installed under its registry
// version and serves a local skill that does not carry it; the installed
// connector edited in place is refused at its next use, with no request
// sent to the provider.
func TestRegistryInstalledToolAndConnectorRun(t *testing.T) {
	f := newForge(t)
	files := skillFiles("forge", forgeSkill)
	files["forgeconn/connector.yaml"] = forgeConnector(f.srv.URL, "none", "0")
	files["tooly/SKILL.md"] = "---\nname: tooly\ndescription: Runs its tool.\nversion: 1.0.0\n---\nManual.\n"
	files["tooly/run.yaml"] = toolySkill
	files["tooly/tool.sh"] = "#!/bin/sh\nprintf '{\"said\":\"hi\"}'\n"
	w := newWorkspace(t, files)
	w.env = append(w.env, "FORGE_TOKEN="+f.token)
	if err := os.Chmod(filepath.Join(w.dir, "tooly", "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(w.dir, "registry-data")
	tokens := map[string]string{}
	for _, ns := range []string{"acme", "forge"} {
		out, err := w.cmd("", nil, "registry", "token", "create", "--data", data, "--namespace", ns).Output()
		if err != nil {
			t.Fatal(err)
		}
		tokens[ns] = strings.TrimSpace(string(out))
	}
	s := startRegistry(t, w, data)
	if doc, code := w.run("", nil, "registry", "trust", "add", "--registry", s.url, "--key", s.key, "--namespace", "acme", "--namespace", "forge", "--json"); code != 0 {
		t.Fatalf("trust add: %d %v", code, doc)
	}
	pub, code := w.run("", []string{"RUNX_REGISTRY_TOKEN=" + tokens["acme"]}, "registry", "publish", "tooly", "--registry", s.url, "--json")
	if code != 0 || pub["ref"] != "acme/tooly@1.0.0" {
		t.Fatalf("publish tooly: %d %v", code, pub)
	}
	conn, code := w.run("", []string{"RUNX_REGISTRY_TOKEN=" + tokens["forge"]}, "registry", "publish", "forgeconn", "--registry", s.url, "--json")
	version, _ := conn["version"].(string)
	if code != 0 || !strings.HasPrefix(version, "sha-") {
		t.Fatalf("publish the connector: %d %v", code, conn)
	}
	for _, ref := range []string{"acme/tooly@1.0.0", "forge@" + version} {
		if doc, code := w.run("", nil, "registry", "install", ref, "--registry", s.url, "--json"); code != 0 {
			t.Fatalf("install %s: %d %v", ref, code, doc)
		}
	}

	// the installed tool kept its executable bit, and runs
	tool := filepath.Join(w.dir, ".runx", "added-skills", "acme", "tooly", "1.0.0", "tool.sh")
	if info, err := os.Stat(tool); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Fatalf("installed tool.sh: %v %v", info, err)
	}
	doc, code := w.run("", nil, "skill", "acme/tooly@1.0.0", "--json")
	if code != 0 || get(doc, "result", "said") != "hi" {
		t.Fatalf("acme/tooly@1.0.0: %d %v", code, doc)
	}

	// the installed connector, at its registry version, serves the local skill
	installed := filepath.Join(w.dir, ".runx", "added-connectors", "forge", version)
	pinInstalledForge(t, w, installed)
	doc, code = w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if code != 0 || doc["outcome"] != "completed" {
		t.Fatalf("a local skill through the installed connector: %d %v", code, doc)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("%d writes reached the forge", n)
	}

	// edited in place: refused at its next use, nothing sent
	manifest := filepath.Join(installed, "connector.yaml")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), "Create one post", "Create a post", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, code = w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=again", "-i", "key=k2", "--json")
	if code == 0 || get(doc, "error", "code") != "registry_package_altered" {
		t.Fatalf("edited installed connector: %d %v", code, doc)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("a write went through an edited connector (%d writes)", n)
	}
}
