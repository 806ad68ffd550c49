package connector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// A pin a package cannot mean is refused at its bind: one naming the
// package's own connector, or one no step calls.
func TestCheckPins(t *testing.T) {
	pin := "sha256:" + strings.Repeat("0", 64)
	runYAML := func(name string) string {
		return "minimum_runx: 0.1.0\nconnectors:\n  " + name + ": { manifest_digest: \"" + pin + "\" }\n" +
			"methods:\n  m:\n    steps:\n      - { id: s, operation: forge/post.create, idempotency_key: k, inputs: { board: b, title: t } }\n"
	}
	own, err := os.ReadFile("../../pkg/testdata/connected/connectors/forge/connector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		files map[string]string
		code  errcode.Code
	}{
		"a called connector outside the package": {files: map[string]string{"run.yaml": runYAML("forge")}},
		"a connector no step calls":              {files: map[string]string{"run.yaml": runYAML("other")}, code: errcode.ConnectorPinInvalid},
		"the package's own connector": {files: map[string]string{"run.yaml": runYAML("forge"),
			"connectors/forge/connector.yaml": string(own)}, code: errcode.ConnectorPinInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c.files["SKILL.md"] = "---\nname: pinned\ndescription: Pins.\n---\nManual.\n"
			for n, b := range c.files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p, err := pkg.Load(dir, pkg.LoadOptions{RunxVersion: "0.1.0"})
			if err != nil {
				t.Fatal(err)
			}
			err = CheckPins(p)
			if c.code == "" && err != nil || c.code != "" && contract.CodeOf(err) != c.code {
				t.Fatalf("err %v; want %q", err, c.code)
			}
		})
	}
}
