package registry

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// An install lands at added-skills/<publisher>/<name>/<version>/ with the
// record as signature.json and "* -text" in added-skills/.gitattributes;
// the installed copy verifies and loads as the skill; installing it again
// is unchanged.
func TestInstallSkill(t *testing.T) {
	s := newSigner(t)
	tr := s.trustFor(t, "acme")
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	project := filepath.Join(t.TempDir(), ".runx")
	res, err := Install(project, rec, files, tr)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(project, "added-skills", "acme", "weather", "1.2.0")
	if res.Status != StatusInstalled || res.Dir != dir || res.Ref != "acme/weather@1.2.0" || res.ContentDigest != rec.ContentDigest {
		t.Fatalf("result %+v", res)
	}
	ga, err := os.ReadFile(filepath.Join(project, "added-skills", ".gitattributes"))
	if err != nil || string(ga) != "* -text\n" {
		t.Fatalf(".gitattributes %q %v", ga, err)
	}
	got, err := VerifyInstalled(dir, tr)
	if err != nil {
		t.Fatal(err)
	}
	if got.ContentDigest != rec.ContentDigest {
		t.Fatalf("installed record %+v", got)
	}
	if p, err := pkg.Load(dir, pkg.LoadOptions{RunxVersion: "0.1.0"}); err != nil || p.Name != "weather" {
		t.Fatalf("load installed: %v", err)
	}
	for _, e := range entries(t, filepath.Dir(dir)) {
		if strings.Contains(filepath.Base(e), "staging") {
			t.Fatalf("staging left behind: %s", e)
		}
	}

	before := entries(t, project)
	again, err := Install(project, rec, files, tr)
	if err != nil || again.Status != StatusUnchanged {
		t.Fatalf("second install: %+v %v", again, err)
	}
	if after := entries(t, project); !slices.Equal(after, before) {
		t.Fatalf("an unchanged install wrote: %v", after)
	}
}

// A connector lands at added-connectors/<name>/<version>/ and loads there.
func TestInstallConnector(t *testing.T) {
	s := newSigner(t)
	tr := s.trustFor(t, "google/*")
	rec, files := s.publish(t, KindConnector, "google", map[string][]byte{"connector.yaml": []byte(connectorYAML("google/calendar"))})
	project := filepath.Join(t.TempDir(), ".runx")
	res, err := Install(project, rec, files, tr)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(project, "added-connectors", "google", "calendar", rec.Version)
	if res.Dir != dir {
		t.Fatalf("dir %s", res.Dir)
	}
	if _, err := os.Stat(filepath.Join(project, "added-connectors", ".gitattributes")); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyInstalled(dir, tr); err != nil {
		t.Fatal(err)
	}
	if c, err := pkg.LoadConnector(dir, "google/calendar"); err != nil || len(c.Operations) != 1 {
		t.Fatalf("load installed connector: %v", err)
	}
}

// Other bytes under an installed version are refused and the installed
// copy is left as it was.
func TestInstallVersionConflict(t *testing.T) {
	s := newSigner(t)
	tr := s.trustFor(t, "acme")
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	project := filepath.Join(t.TempDir(), ".runx")
	if _, err := Install(project, rec, files, tr); err != nil {
		t.Fatal(err)
	}
	other := skillFiles()
	other["tests/none.txt"] = []byte("other bytes")
	rec2, files2 := s.publish(t, KindSkill, "acme", other)
	before := entries(t, project)
	_, err := Install(project, rec2, files2, tr)
	wantCode(t, err, errcode.RegistryVersionConflict)
	if after := entries(t, project); !slices.Equal(after, before) {
		t.Fatalf("a refused install wrote: %v", after)
	}
	if _, err := VerifyInstalled(res(project), tr); err != nil {
		t.Fatalf("the installed copy changed: %v", err)
	}
	// An installed copy edited in place is other bytes too.
	if err := os.WriteFile(filepath.Join(res(project), "tests", "none.txt"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Install(project, rec, files, tr)
	wantCode(t, err, errcode.RegistryVersionConflict)
}

func res(project string) string {
	return filepath.Join(project, "added-skills", "acme", "weather", "1.2.0")
}

// Every refused install writes nothing: not the project directory, not a
// parent, not a staging directory.
func TestInstallRefusedWritesNothing(t *testing.T) {
	s := newSigner(t)
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	altered := map[string][]byte{}
	for k, v := range files {
		altered[k] = v
	}
	altered["run.yaml"] = append([]byte("# x\n"), files["run.yaml"]...)
	for name, c := range map[string]struct {
		files map[string][]byte
		trust *Trust
		code  errcode.Code
	}{
		"altered byte":    {altered, s.trustFor(t, "acme"), errcode.RegistryPackageAltered},
		"other namespace": {files, s.trustFor(t, "other"), errcode.RegistryKeyUntrusted},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			project := filepath.Join(root, ".runx")
			_, err := Install(project, rec, c.files, c.trust)
			wantCode(t, err, c.code)
			if got := entries(t, root); len(got) != 1 {
				t.Fatalf("a refused install wrote %v", got)
			}
		})
	}
}

// Staged files must repackage as exactly the signed package: a signed
// record naming a file the package rules leave out (.git/config) or files
// that do not load as its kind is refused before the rename, leaving
// nothing, not even the parents it made.
func TestInstallRepackageCheck(t *testing.T) {
	s := newSigner(t)
	for name, c := range map[string]struct {
		extra map[string][]byte
		kind  Kind
		code  errcode.Code
	}{
		"excluded file": {map[string][]byte{".git/config": []byte("[core]\n")}, KindSkill, errcode.RegistryPackageAltered},
		"not a skill":   {map[string][]byte{"SKILL.md": []byte("no front matter\n")}, KindSkill, errcode.SkillMDInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			rec, files := s.publish(t, KindSkill, "acme", skillFiles())
			// The registry signs a record over other files than the
			// package it built: what a hostile registry can do.
			for p, b := range c.extra {
				files[p] = b
			}
			var list []File
			for p, b := range files {
				list = append(list, fileOf(p, b))
			}
			sortFiles(list)
			rec.Files = list
			rec.ContentDigest, _ = ContentDigest(list)
			if err := Sign(rec, s.priv); err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			_, err := Install(filepath.Join(root, ".runx"), rec, files, s.trustFor(t, "acme"))
			wantCode(t, err, c.code)
			if got := entries(t, root); len(got) != 1 {
				t.Fatalf("a refused install wrote %v", got)
			}
		})
	}
}

// A symbolic link on the way to the install directory is refused: the
// install would land outside the project.
func TestInstallRefusesSymlinkedParent(t *testing.T) {
	s := newSigner(t)
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	project := filepath.Join(t.TempDir(), ".runx")
	elsewhere := t.TempDir()
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(project, "added-skills")); err != nil {
		t.Fatal(err)
	}
	_, err := Install(project, rec, files, s.trustFor(t, "acme"))
	wantCode(t, err, errcode.RegistrySymlinkRefused)
	if got := entries(t, elsewhere); len(got) != 1 {
		t.Fatalf("installed through the link: %v", got)
	}
}

// VerifyInstalled refuses an installed copy with one byte edited, a file
// added, its signature.json gone or edited, or a record moved to another
// package's directory.
func TestVerifyInstalledRefusals(t *testing.T) {
	s := newSigner(t)
	tr := s.trustFor(t, "acme")
	fresh := func(t *testing.T) string {
		rec, files := s.publish(t, KindSkill, "acme", skillFiles())
		project := filepath.Join(t.TempDir(), ".runx")
		r, err := Install(project, rec, files, tr)
		if err != nil {
			t.Fatal(err)
		}
		return r.Dir
	}
	// Finder's .DS_Store is not the package.
	dir := fresh(t)
	must(t, os.WriteFile(filepath.Join(dir, "tests", ".DS_Store"), []byte("x"), 0o644))
	if _, err := VerifyInstalled(dir, tr); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		edit func(t *testing.T, dir string) string
		code errcode.Code
	}{
		"one byte": {func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "run.yaml")
			b, _ := os.ReadFile(p)
			b[len(b)-2] ^= 1
			must(t, os.WriteFile(p, b, 0o644))
			return dir
		}, errcode.RegistryPackageAltered},
		"added file": {func(t *testing.T, dir string) string {
			must(t, os.WriteFile(filepath.Join(dir, "evil.mjs"), []byte("x"), 0o644))
			return dir
		}, errcode.RegistryPackageAltered},
		"added node_modules": {func(t *testing.T, dir string) string {
			must(t, os.MkdirAll(filepath.Join(dir, "node_modules", "x"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "node_modules", "x", "index.js"), []byte("x"), 0o644))
			return dir
		}, errcode.RegistryPackageAltered},
		"unsigned": {func(t *testing.T, dir string) string {
			must(t, os.Remove(filepath.Join(dir, SignatureFile)))
			return dir
		}, errcode.RegistrySignatureInvalid},
		"record edited": {func(t *testing.T, dir string) string {
			p := filepath.Join(dir, SignatureFile)
			b, _ := os.ReadFile(p)
			must(t, os.WriteFile(p, []byte(strings.Replace(string(b), "Read the weather.", "Read the weather!", 1)), 0o644))
			return dir
		}, errcode.RegistrySignatureInvalid},
		"moved": {func(t *testing.T, dir string) string {
			to := filepath.Join(filepath.Dir(dir), "9.9.9")
			must(t, os.Rename(dir, to))
			return to
		}, errcode.RegistryRecordInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			dir := c.edit(t, fresh(t))
			_, err := VerifyInstalled(dir, tr)
			wantCode(t, err, c.code)
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A signed record that states other methods, connectors or a description
// than its files hold is refused at install: what a listing shows of an
// installed package is what it holds.
func TestInstallRefusesMisstatedRecord(t *testing.T) {
	s := newSigner(t)
	for name, edit := range map[string]func(r *Record){
		"description": func(r *Record) { r.Description = "Moves money." },
		"methods":     func(r *Record) { r.Methods[0].Description = "Harmless." },
		"connectors":  func(r *Record) { r.Connectors = nil },
	} {
		t.Run(name, func(t *testing.T) {
			rec, files := s.publish(t, KindSkill, "acme", skillFiles())
			edit(rec)
			must(t, Sign(rec, s.priv))
			root := t.TempDir()
			_, err := Install(filepath.Join(root, ".runx"), rec, files, s.trustFor(t, "acme"))
			wantCode(t, err, errcode.RegistryRecordInvalid)
			if got := entries(t, root); len(got) != 1 {
				t.Fatalf("a refused install wrote %v", got)
			}
		})
	}
}
