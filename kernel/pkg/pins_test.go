package pkg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// run.yaml's connectors pins a connector outside the package to a manifest
// digest; a pin that is not one is refused at load (kernel/run/connector's
// CheckPins refuses the pins a package cannot mean at every bind).
func TestConnectorPins(t *testing.T) {
	p, err := Load("testdata/pinned", LoadOptions{RunxVersion: testRunx})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ConnectorPins["forge"]; got != "sha256:"+strings.Repeat("0", 64) {
		t.Fatalf("pins %v", p.ConnectorPins)
	}
	src, err := os.ReadFile("testdata/pinned/run.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		edit func(string) string
		code errcode.Code
	}{
		"manifest_digest not a digest": {edit: func(s string) string { return strings.Replace(s, `"sha256:0000`, `"md5:0000`, 1) }, code: errcode.RunxYAMLInvalid},
		"no manifest_digest": {edit: func(s string) string {
			return strings.Replace(s, `{ manifest_digest: "sha256:`+strings.Repeat("0", 64)+`" }`, `{}`, 1)
		}, code: errcode.RunxYAMLInvalid},
		"an unknown pin field": {edit: func(s string) string {
			return strings.Replace(s, `{ manifest_digest:`, `{ version: "1.0.0", manifest_digest:`, 1)
		}, code: errcode.RunxYAMLUnknownField},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"SKILL.md": "---\nname: pinned\ndescription: Pins.\n---\nManual.\n", "run.yaml": c.edit(string(src))}
			for n, b := range files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir, LoadOptions{RunxVersion: testRunx})
			if CodeOf(err) != c.code {
				t.Fatalf("err %v; want %s", err, c.code)
			}
		})
	}
}
