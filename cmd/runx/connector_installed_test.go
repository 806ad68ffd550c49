package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/canon"
)

// A connector a registry installed (.runx/added-connectors/<name>/sha-…/,
// signed) serves a package that carries none and binds its run's closure:
// edited in place while a run waits, the run refuses to resume and a new
// run refuses the edited copy at its use, with no write sent; the signed
// bytes back, the waiting run goes on.
func TestInstalledConnectorEditedIsRefusedAtItsUse(t *testing.T) {
	f := newForge(t)
	w := newWorkspace(t, skillFiles("forge", forgeSkill))
	w.env = append(w.env, "FORGE_TOKEN="+f.token)
	dir := installSignedConnector(t, w, "forge", forgeConnector(f.srv.URL, "required", "1500"))
	pinInstalledForge(t, w, dir)
	manifest := filepath.Join(dir, "connector.yaml")
	paused, _ := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if str(paused, "status") != "needs_approval" {
		t.Fatalf("paused: %v", paused)
	}
	os.WriteFile(manifest, []byte(forgeConnector(f.srv.URL, "required", "2500")), 0o644)
	approve := answerDoc("approvals", "publish", str(paused, "requests", "0", "request_digest"), `"approved":true,"reason":"yes"`)
	drift, code := w.run(approve, nil, "resume", str(paused, "run_id"), "-", "--json")
	if code == 0 || str(drift, "error", "code") != "resume_closure_drift" {
		t.Fatalf("want resume_closure_drift, got %d %v", code, drift)
	}
	edited, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k2", "--json")
	if code == 0 || str(edited, "error", "code") != "registry_package_altered" {
		t.Fatalf("a run of the edited connector: %d %v", code, edited)
	}
	if n, _ := f.writeCount(); n != 0 {
		t.Fatal("a write went under an edited connector")
	}
	os.WriteFile(manifest, []byte(forgeConnector(f.srv.URL, "required", "1500")), 0o644)
	done, code := w.run(approve, nil, "resume", str(paused, "run_id"), "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("resume: %d %v", code, done)
	}
}

// installSignedConnector publishes a connector under a key the workspace's
// runx home trusts for it and installs it into the project, as runx
// registry install does; it returns the version directory.
func installSignedConnector(t *testing.T, w *workspace, name, manifest string) string {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(w.dir, ".home")
	tr, err := registry.LoadTrust(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Add("https://reg.test", registry.FormatPublicKey(pub), name); err != nil {
		t.Fatal(err)
	}
	if err := tr.Save(home); err != nil {
		t.Fatal(err)
	}
	pkgJSON, err := canon.Canonical(map[string]any{"kind": "connector", "name": name, "package_format": registry.PackageFormat})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"connector.yaml": []byte(manifest), "runx.package.json": pkgJSON}
	p, err := registry.BuildFiles(registry.KindConnector, files)
	if err != nil {
		t.Fatal(err)
	}
	rec := registry.NewRecord(p, "https://reg.test", name, registry.TierCommunity, time.Now())
	if err := registry.Sign(rec, priv); err != nil {
		t.Fatal(err)
	}
	res, err := registry.Install(filepath.Join(w.dir, ".runx"), rec, files, tr)
	if err != nil {
		t.Fatal(err)
	}
	return res.Dir
}

// A local skill binding a connector outside its package pins its
// manifest_digest in run.yaml's connectors: unpinned it is refused, the
// installed manifest it pins runs; another one, however validly signed, is
// refused at its use with nothing sent.
func TestLocalSkillPinsAnInstalledConnector(t *testing.T) {
	f := newForge(t)
	w := newWorkspace(t, nil)
	w.env = append(w.env, "FORGE_TOKEN="+f.token)
	dir := installSignedConnector(t, w, "forge", forgeConnector(f.srv.URL, "required", "1500"))
	for n, b := range skillFiles("forge", forgeSkill) {
		w.write(n, b)
	}
	unpinned, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k0", "--json")
	if code == 0 || str(unpinned, "error", "code") != "connector_pin_missing" {
		t.Fatalf("an installed connector bound without a pin: %d %v", code, unpinned)
	}
	pinInstalledForge(t, w, dir)
	paused, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if str(paused, "status") != "needs_approval" {
		t.Fatalf("the pinned manifest: %d %v", code, paused)
	}
	for n, b := range skillFiles("forge", pinnedForge("sha256:"+strings.Repeat("0", 64))) {
		w.write(n, b)
	}
	out, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k2", "--json")
	if code == 0 || str(out, "error", "code") != "connector_pin_mismatch" {
		t.Fatalf("another manifest than the pin: %d %v", code, out)
	}
	if n, _ := f.writeCount(); n != 0 {
		t.Fatal("a write went through a connector its pin refuses")
	}
}

// pinnedForge is the forge skill's run.yaml pinning its connector to the
// manifest digest given.
func pinnedForge(digest string) string {
	return strings.Replace(forgeSkill, "minimum_runx: 0.1.0\n", "minimum_runx: 0.1.0\nconnectors:\n  forge: { manifest_digest: \""+digest+"\" }\n", 1)
}

// pinInstalledForge writes the workspace's forge skill pinned to the
// manifest of the connector installed at dir, as its author would after
// reading it.
func pinInstalledForge(t *testing.T, w *workspace, dir string) {
	t.Helper()
	c, err := pkg.LoadConnector(dir, "forge")
	if err != nil {
		t.Fatal(err)
	}
	for n, b := range skillFiles("forge", pinnedForge(c.ManifestDigest)) {
		w.write(n, b)
	}
}
