package registry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// A run's Verified verifies an installed connector once for its bytes:
// the same bytes again are the connector it loaded, without the trust
// store (here removed after the first load) being read again; an edit
// while the run runs, a file added or a mode changed, is verified anew and
// refused. A new run's Verified, or none, reads the trust store again.
func TestVerifiedOnceARunForTheSameBytes(t *testing.T) {
	project, home, _, dir := installedConnector(t, nil)
	var run Verified
	first, err := run.LoadAddedConnector(project, home, "google/calendar", "")
	if err != nil || first == nil {
		t.Fatalf("first load: %v %v", first, err)
	}
	trust := filepath.Join(home, filepath.FromSlash(TrustFile))
	saved, err := os.ReadFile(trust)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(trust); err != nil {
		t.Fatal(err)
	}
	again, err := run.LoadAddedConnector(project, home, "google/calendar", "")
	if err != nil || again != first {
		t.Fatalf("the same bytes in the same run must be the connector it verified: %p %p %v", again, first, err)
	}
	var next Verified
	if _, err := next.LoadAddedConnector(project, home, "google/calendar", ""); err == nil {
		t.Fatal("a new run used a connector without reading the trust store")
	}
	var none *Verified
	if _, err := none.LoadAddedConnector(project, home, "google/calendar", ""); err == nil {
		t.Fatal("no memory used a connector without reading the trust store")
	}
	if err := os.WriteFile(trust, saved, 0o600); err != nil {
		t.Fatal(err)
	}

	manifest := filepath.Join(dir, "connector.yaml")
	b, _ := os.ReadFile(manifest)
	for name, change := range map[string]func() error{
		"edited":      func() error { return os.WriteFile(manifest, append(b, '\n'), 0o644) },
		"file added":  func() error { return os.WriteFile(filepath.Join(dir, "extra.txt"), []byte("x"), 0o644) },
		"mode change": func() error { return os.Chmod(manifest, 0o755) },
	} {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		_, err := run.LoadAddedConnector(project, home, "google/calendar", "")
		wantCode(t, err, errcode.RegistryPackageAltered)
		// the signed bytes back: the run finds the connector it verified
		os.WriteFile(manifest, b, 0o644)
		os.Chmod(manifest, 0o644)
		os.Remove(filepath.Join(dir, "extra.txt"))
		if c, err := run.LoadAddedConnector(project, home, "google/calendar", ""); err != nil || c != first {
			t.Fatalf("%s, then restored: %p %v", name, c, err)
		}
	}
}
