package registry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// installedConnector installs google/calendar signed by a test key the
// trust store of a temp runx home holds, and returns the project, the
// home, the record and the installed directory.
func installedConnector(t *testing.T, extra map[string][]byte) (project, home string, rec *Record, dir string) {
	t.Helper()
	s := newSigner(t)
	tr := s.trustFor(t, "google")
	home = filepath.Join(t.TempDir(), "home")
	if err := tr.Save(home); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"connector.yaml": []byte(connectorYAML("google/calendar"))}
	for k, v := range extra {
		files[k] = v
	}
	rec, files = s.publish(t, KindConnector, "google", files)
	project = filepath.Join(t.TempDir(), ".runx")
	res, err := Install(project, rec, files, tr)
	if err != nil {
		t.Fatal(err)
	}
	return project, home, rec, res.Dir
}

// An installed connector loads from its registry version directory (not
// the version its manifest declares), with the manifest and connector
// digests its signed record states: the package's runx.package.json and
// signature.json are not the connector's.
func TestInstalledConnectorLoads(t *testing.T) {
	project, home, rec, dir := installedConnector(t, map[string][]byte{"README.md": []byte("# calendar\n")})
	c, err := LoadAddedConnector(project, home, "google/calendar", "")
	if err != nil {
		t.Fatal(err)
	}
	b := rec.Connectors[0]
	if c.Version != "1.0.0" || c.RegistryVersion != rec.Version || c.ManifestDigest != b.ManifestDigest || c.ConnectorDigest != b.ConnectorDigest {
		t.Fatalf("loaded %s %s %s %s; record states %s %s %s", c.Version, c.RegistryVersion, c.ManifestDigest, c.ConnectorDigest, rec.Version, b.ManifestDigest, b.ConnectorDigest)
	}
	if c.Dir != dir {
		t.Fatalf("dir %s, want %s", c.Dir, dir)
	}
	// by its version too
	if _, err := LoadAddedConnector(project, home, "google/calendar", rec.Version); err != nil {
		t.Fatal(err)
	}
}

// An installed connector edited in place, or whose signature is gone, or
// whose key the home does not trust, is refused at its next load.
func TestInstalledConnectorRefusals(t *testing.T) {
	t.Run("edited", func(t *testing.T) {
		project, home, _, dir := installedConnector(t, nil)
		p := filepath.Join(dir, "connector.yaml")
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadAddedConnector(project, home, "google/calendar", "")
		wantCode(t, err, errcode.RegistryPackageAltered)
	})
	t.Run("file added", func(t *testing.T) {
		project, home, _, dir := installedConnector(t, nil)
		if err := os.WriteFile(filepath.Join(dir, "extra.txt"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadAddedConnector(project, home, "google/calendar", "")
		wantCode(t, err, errcode.RegistryPackageAltered)
	})
	t.Run("unsigned", func(t *testing.T) {
		project, home, _, dir := installedConnector(t, nil)
		if err := os.Remove(filepath.Join(dir, SignatureFile)); err != nil {
			t.Fatal(err)
		}
		_, err := LoadAddedConnector(project, home, "google/calendar", "")
		wantCode(t, err, errcode.RegistrySignatureInvalid)
	})
	t.Run("untrusted", func(t *testing.T) {
		project, _, _, _ := installedConnector(t, nil)
		_, err := LoadAddedConnector(project, t.TempDir(), "google/calendar", "")
		wantCode(t, err, errcode.RegistryKeyUntrusted)
	})
	t.Run("no verifier", func(t *testing.T) {
		project, _, _, _ := installedConnector(t, nil)
		_, err := pkg.LoadAddedConnector(project, "google/calendar", "", nil)
		wantCode(t, err, errcode.RegistrySignatureInvalid)
	})
}

// A connector added from the release (no signature.json) keeps its rules:
// its directory is the version its manifest declares, and nothing of the
// registry is asked.
func TestReleaseConnectorKeepsItsRules(t *testing.T) {
	project := filepath.Join(t.TempDir(), ".runx")
	dir := filepath.Join(project, AddedConnectorsDir, "store", "1.0.0")
	if err := writeFiles(dir, map[string][]byte{"connector.yaml": []byte(connectorYAML("store"))}); err != nil {
		t.Fatal(err)
	}
	c, err := LoadAddedConnector(project, filepath.Join(t.TempDir(), "no-home"), "store", "")
	if err != nil || c.Version != "1.0.0" || c.RegistryVersion != "" {
		t.Fatalf("%v %v", c, err)
	}
	if c.ConnectorDigest == "" {
		t.Fatal("no connector digest")
	}
}
