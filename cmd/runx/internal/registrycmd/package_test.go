package registrycmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// runx registry package takes one package and --json.
func TestPackageFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *PackageOptions { return &PackageOptions{Factory: f} }
	newCmd := func(runF func(*PackageOptions) error) *cobra.Command {
		cmd := &cobra.Command{Use: "registry"}
		cmd.AddCommand(NewPackage(f, runF))
		return cmd
	}
	clitest.Table(t, newCmd, defaults, []clitest.Case[PackageOptions]{
		{Args: []string{"registry", "package", "skills/x"}, Want: func(o *PackageOptions) { o.Ref = "skills/x" }},
		{Args: []string{"registry", "package", "skills/x/SKILL.md", "--json"}, Want: func(o *PackageOptions) { o.Ref, o.JSON = "skills/x/SKILL.md", true }},
		{Args: []string{"registry", "package"}},
		{Args: []string{"registry", "package", "a", "b"}},
		{Args: []string{"registry", "package", "a", "--nope"}},
	})
}

// --json prints the artifact Build makes and writes nothing; a refusal is
// one JSON error document with its code.
func TestPackageJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hello")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: hello\ndescription: Say hello.\nversion: 1.0.0\n---\n\nSay hello to the user.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &bytes.Buffer{}
	f := &cli.Factory{IO: &cli.IO{Out: out, Err: &bytes.Buffer{}}}
	if err := RunPackage(&PackageOptions{Factory: f, Ref: dir, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema      string            `json:"schema"`
		Package     *registry.Package `json:"package"`
		Publishable bool              `json:"publishable"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want, err := registry.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Schema != PackageSchema || !doc.Publishable || doc.Package.ContentDigest != want.ContentDigest || len(doc.Package.Files) != 2 {
		t.Fatalf("document %s", out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("package wrote into %s: %v", dir, ents)
	}

	out.Reset()
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	if err := RunPackage(&PackageOptions{Factory: f, Ref: dir, JSON: true}); err == nil {
		t.Fatal("a package holding a symbolic link was packaged")
	}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &e); err != nil || e.Error.Code != string(errcode.RegistrySymlinkRefused) {
		t.Fatalf("error document %s (%v)", out, err)
	}
}
