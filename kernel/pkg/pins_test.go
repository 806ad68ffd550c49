package pkg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// run.yaml's connectors pins a connector outside the package to a manifest
// digest; a pin it cannot mean is refused at load.
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
		edit  func(string) string
		files map[string]string
		code  errcode.Code
	}{
		"manifest_digest not a digest": {edit: func(s string) string { return strings.Replace(s, `"sha256:0000`, `"md5:0000`, 1) }, code: errcode.RunxYAMLInvalid},
		"no manifest_digest": {edit: func(s string) string {
			return strings.Replace(s, `{ manifest_digest: "sha256:`+strings.Repeat("0", 64)+`" }`, `{}`, 1)
		}, code: errcode.RunxYAMLInvalid},
		"an unknown pin field": {edit: func(s string) string {
			return strings.Replace(s, `{ manifest_digest:`, `{ version: "1.0.0", manifest_digest:`, 1)
		}, code: errcode.RunxYAMLUnknownField},
		"a connector no step calls": {edit: func(s string) string { return strings.Replace(s, "  forge: {", "  other: {", 1) }, code: errcode.ConnectorPinInvalid},
		"the package's own connector": {
			edit:  func(s string) string { return s },
			files: map[string]string{"connectors/forge/connector.yaml": string(forgeManifest(t))},
			code:  errcode.ConnectorPinInvalid,
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"SKILL.md": "---\nname: pinned\ndescription: Pins.\n---\nManual.\n", "run.yaml": c.edit(string(src))}
			for n, b := range c.files {
				files[n] = b
			}
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

func forgeManifest(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/connected/connectors/forge/connector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
