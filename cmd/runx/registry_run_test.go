package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A published skill: one module step, so its run needs no agent.
var kidFiles = map[string]string{
	"kid/SKILL.md": "---\nname: kid\ndescription: Doubles a number.\nversion: 1.0.0\n---\nManual.\n",
	"kid/run.yaml": `minimum_runx: 0.1.0
methods:
  double:
    description: Double a number.
    inputs:
      n: { type: integer, default: 2, description: The number. }
    outputs:
      doubled: { type: integer }
    steps:
      - id: twice
        tool: { module: twice.mjs }
        inputs: { n: $input.n }
        outputs:
          doubled: { type: integer }
`,
	"kid/twice.mjs":   "export default function twice(input) {\n  return { doubled: input.n * 2 };\n}\n",
	"parent/SKILL.md": "---\nname: parent\ndescription: Runs a registry child.\n---\nManual.\n",
	"parent/run.yaml": `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: child
        skill: registry:acme/kid@1.0.0
`,
}

// Against a real `runx registry serve` on loopback: a registry: child is
// fetched before the run and installed signed; an installed skill runs by
// its ref and names its package; runx list skills shows it; one byte
// edited in the installed copy refuses every bind of it, by ref and as a
// child, with nothing run.
func TestRegistrySkillRunsFromARealRegistry(t *testing.T) {
	w := newWorkspace(t, kidFiles)
	data := filepath.Join(w.dir, "registry-data")
	out, err := w.cmd("", nil, "registry", "token", "create", "--data", data, "--namespace", "acme").Output()
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(out))
	s := startRegistry(t, w, data)
	if doc, code := w.run("", nil, "registry", "trust", "add", "--registry", s.url, "--key", s.key, "--namespace", "acme", "--json"); code != 0 {
		t.Fatalf("trust add: %d %v", code, doc)
	}
	pub, code := w.run("", []string{"RUNX_REGISTRY_TOKEN=" + token}, "registry", "publish", "kid", "--registry", s.url, "--json")
	if code != 0 || pub["ref"] != "acme/kid@1.0.0" {
		t.Fatalf("publish: %d %v", code, pub)
	}
	// the publish source must not answer the ref: it is not skills/acme/kid
	if err := os.RemoveAll(filepath.Join(w.dir, "kid")); err != nil {
		t.Fatal(err)
	}

	// a ref on the command line, without a version, is fetched before the
	// run: the newest version, installed signed, then run
	doc, code := w.run("", nil, "skill", "acme/kid", "-i", "n=7", "--registry", s.url, "--json")
	if code != 0 || get(doc, "result", "doubled") != float64(14) || get(doc, "registry", "version") != "1.0.0" {
		t.Fatalf("runx skill acme/kid --registry: %d %v", code, doc)
	}
	if err := os.RemoveAll(filepath.Join(w.dir, ".runx", "added-skills")); err != nil {
		t.Fatal(err)
	}

	// without a registry the missing child refuses the run before it starts
	doc, code = w.run("", nil, "skill", "./parent", "--json")
	if code == 0 || get(doc, "error", "code") != "registry_unavailable" {
		t.Fatalf("no registry: %d %v", code, doc)
	}
	installed := filepath.Join(w.dir, ".runx", "added-skills", "acme", "kid", "1.0.0")
	if _, err := os.Stat(installed); err == nil {
		t.Fatal("a refused run installed its child")
	}

	doc, code = w.run("", nil, "skill", "./parent", "--registry", s.url, "--json")
	if code != 0 || doc["outcome"] != "completed" || get(doc, "result", "doubled") != float64(4) {
		t.Fatalf("parent with a registry child: %d %v", code, doc)
	}
	if _, err := os.Stat(filepath.Join(installed, "signature.json")); err != nil {
		t.Fatalf("the child was not installed signed before the run: %v", err)
	}

	// installed, it runs by its ref with no registry, and names its package
	doc, code = w.run("", nil, "skill", "acme/kid@1.0.0", "-i", "n=5", "--json")
	if code != 0 || get(doc, "result", "doubled") != float64(10) {
		t.Fatalf("acme/kid@1.0.0: %d %v", code, doc)
	}
	if get(doc, "registry", "ref") != "acme/kid@1.0.0" || get(doc, "registry", "content_digest") != pub["content_digest"] ||
		get(doc, "registry", "trust_tier") != "community" || get(doc, "registry", "publisher") != "acme" {
		t.Fatalf("the envelope does not name the package: %v", doc["registry"])
	}
	rid, _ := doc["receipt_id"].(string)
	raw, err := os.ReadFile(filepath.Join(w.dir, ".runx", "receipts", "sha256-"+strings.TrimPrefix(rid, "sha256:")+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"registry":{"content_digest":"`+pub["content_digest"].(string)+`","name":"kid","publisher":"acme"`) {
		t.Fatalf("the run receipt does not name the package's content digest:\n%s", raw)
	}

	list, code := w.run("", nil, "list", "skills", "--json")
	if code != 0 || !listed(list, "acme/kid@1.0.0", "installed", "community") {
		t.Fatalf("list skills: %d %v", code, list)
	}

	// one byte edited in place: every bind refuses it, nothing runs
	mod := filepath.Join(installed, "twice.mjs")
	b, err := os.ReadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(mod, []byte(strings.Replace(string(b), "* 2", "* 3", 1)), 0o644)
	hist, _ := w.run("", nil, "history", "--json")
	before := len(asList(hist["runs"]))
	doc, code = w.run("", nil, "skill", "acme/kid@1.0.0", "--json")
	if code == 0 || get(doc, "error", "code") != "registry_package_altered" {
		t.Fatalf("edited install by ref: %d %v", code, doc)
	}
	hist, _ = w.run("", nil, "history", "--json")
	if after := len(asList(hist["runs"])); after != before {
		t.Fatalf("a refused bind left %d runs behind", after-before)
	}
	doc, code = w.run("", nil, "skill", "./parent", "--registry", s.url, "--json")
	if code == 0 || get(doc, "error", "code") != "registry_package_altered" || doc["result"] != nil && get(doc, "result", "doubled") != nil {
		t.Fatalf("edited child: %d %v", code, doc)
	}
	list, _ = w.run("", nil, "list", "skills", "--json")
	if !listed(list, "acme/kid@1.0.0", "installed", "unverified") {
		t.Fatalf("list skills after the edit: %v", list)
	}
}

// listed reports whether a runx.skill_list.v1 document lists ref from
// source at trust tier.
func listed(doc map[string]any, ref, source, tier string) bool {
	for _, s := range asList(doc["skills"]) {
		m, _ := s.(map[string]any)
		if m["ref"] == ref && m["source"] == source && m["trust_tier"] == tier {
			return true
		}
	}
	return false
}
