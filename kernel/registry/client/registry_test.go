package client

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/canon"
)

// testRegistry is a registry in a test: real signed records over real
// packages, served by an httptest server the test can make hostile by
// rewriting answers.
type testRegistry struct {
	t    testing.TB
	srv  *httptest.Server
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey

	mu       sync.Mutex
	versions map[string][]VersionInfo              // "acme/weather" -> versions
	records  map[string]json.RawMessage            // "acme/weather@1.0.0" -> record
	files    map[string]map[string][]byte          // "acme/weather@1.0.0" -> files
	rewrite  func(path string, body []byte) []byte // a hostile server's edit of an answer
	hits     map[string]int
}

func newTestRegistry(t testing.TB) *testRegistry {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &testRegistry{t: t, priv: priv, pub: pub, versions: map[string][]VersionInfo{}, records: map[string]json.RawMessage{}, files: map[string]map[string][]byte{}, hits: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// skillFiles is a small skill at version.
func skillFiles(name, version string, extra int) map[string][]byte {
	files := map[string][]byte{
		"SKILL.md": []byte(fmt.Sprintf("---\nname: %s\nversion: %s\ndescription: Tell the weather for a place.\n---\n\n# %s\n\nSays the weather.\n", name, version, name)),
	}
	for i := range extra {
		files[fmt.Sprintf("docs/note-%03d.md", i)] = []byte(fmt.Sprintf("note %d of %s@%s\n", i, name, version))
	}
	return files
}

// publish signs files as publisher's skill, of package format format.
func (r *testRegistry) publish(publisher string, files map[string][]byte, format int) *registry.Record {
	r.t.Helper()
	p, err := registry.BuildFiles(registry.KindSkill, files)
	if err != nil {
		r.t.Fatal(err)
	}
	rec := registry.NewRecord(p, r.srv.URL, publisher, registry.TierCommunity, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	rec.PackageFormat = format
	if err := registry.Sign(rec, r.priv); err != nil {
		r.t.Fatal(err)
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		r.t.Fatal(err)
	}
	// The registry serves every file the record names, runx.package.json
	// (which packaging synthesizes) among them.
	all := map[string][]byte{registry.ManifestFile: manifestOf(r.t, p)}
	for k, v := range files {
		all[k] = v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := publisher + "/" + p.Name
	r.versions[key] = append(r.versions[key], VersionInfo{Version: p.Version, ContentDigest: p.ContentDigest, PackageFormat: format, PublishedAt: rec.PublishedAt})
	r.records[rec.Ref] = raw
	r.files[rec.Ref] = all
	return rec
}

// trust holds the registry's key for namespaces.
func (r *testRegistry) trust(namespaces ...string) *registry.Trust {
	t := &registry.Trust{}
	if err := t.Add(r.srv.URL, registry.FormatPublicKey(r.pub), namespaces...); err != nil {
		r.t.Fatal(err)
	}
	return t
}

func (r *testRegistry) client(o Options) *Client {
	r.t.Helper()
	c, err := New(r.srv.URL, o)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

func (r *testRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hits[req.URL.Path]++
	var body []byte
	status := http.StatusOK
	rest, ok := strings.CutPrefix(req.URL.Path, "/v1/skills/")
	parts := strings.Split(rest, "/")
	switch {
	case ok && len(parts) == 2:
		vs, found := r.versions[rest]
		if !found {
			status, body = 404, []byte(`{"error":{"code":"registry_package_not_found","message":"no such skill"}}`)
			break
		}
		body, _ = json.Marshal(Versions{Publisher: parts[0], Name: parts[1], TrustTier: "community", Versions: vs})
	case ok && len(parts) == 5 && parts[2] == "versions":
		ref := parts[0] + "/" + parts[1] + "@" + parts[3]
		switch parts[4] {
		case "record":
			body, ok = r.records[ref]
		case "files":
			var fs []wireFile
			for p, b := range r.files[ref] {
				fs = append(fs, wireFile{Path: p, Data: b})
			}
			_, ok = r.files[ref]
			body, _ = json.Marshal(map[string]any{"files": fs})
		}
		if !ok {
			status, body = 404, []byte(`{"error":{"code":"registry_version_not_found","message":"no such version"}}`)
		}
	default:
		status, body = 404, []byte(`{"error":{"code":"registry_route_unknown","message":"no such route"}}`)
	}
	if r.rewrite != nil {
		body = r.rewrite(req.URL.Path, body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// emptyTree fails unless dir holds nothing (or does not exist).
func emptyTree(t testing.TB, dir string) {
	t.Helper()
	var found []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && p != dir {
			found = append(found, p)
		}
		return nil
	})
	if len(found) > 0 {
		t.Fatalf("a refused install wrote %v", found)
	}
}

// manifestOf is the runx.package.json packaging synthesizes for p.
func manifestOf(t testing.TB, p *registry.Package) []byte {
	t.Helper()
	b, err := canon.Canonical(map[string]any{"kind": p.Kind, "name": p.Name, "package_format": p.PackageFormat, "version": p.Version})
	if err != nil {
		t.Fatal(err)
	}
	if canon.DigestBytes(b) != p.Files[slices.IndexFunc(p.Files, func(f registry.File) bool { return f.Path == registry.ManifestFile })].Digest {
		t.Fatal("the test's runx.package.json is not the one packaging makes")
	}
	return b
}
