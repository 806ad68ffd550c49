package registry

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Build lists every file with its digest and size, synthesizes
// runx.package.json, takes the version from SKILL.md, the methods with
// their descriptions and the carried connector's digests, and gives the same
// artifact from the directory, its SKILL.md and the files as bytes.
func TestBuildSkill(t *testing.T) {
	files := skillFiles()
	dir := writeTree(t, files)
	before := entries(t, dir)
	p, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); !slices.Equal(got, before) {
		t.Fatalf("Build wrote into the package: %v", got)
	}
	if p.Kind != KindSkill || p.Name != "weather" || p.Version != "1.2.0" || p.PackageFormat != PackageFormat {
		t.Fatalf("package %+v", p)
	}
	if err := p.CheckPublish(); err != nil {
		t.Fatal(err)
	}
	wantMethods := []Method{{"forecast", "Forecast for one place."}, {"today", "Today only."}}
	if !reflect.DeepEqual(p.Methods, wantMethods) {
		t.Fatalf("methods %+v", p.Methods)
	}
	var paths []string
	for _, f := range p.Files {
		paths = append(paths, f.Path)
		if b, ok := files[f.Path]; ok && (f.Digest != canon.DigestBytes(b) || f.Size != int64(len(b))) {
			t.Fatalf("file %+v does not describe its bytes", f)
		}
	}
	if want := []string{"SKILL.md", "connectors/meteo/connector.yaml", "run.yaml", "runx.package.json", "tests/none.txt"}; !slices.Equal(paths, want) {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	if cd, _ := canon.Digest(p.Files); cd != p.ContentDigest {
		t.Fatalf("content digest %s is not the digest of the files (%s)", p.ContentDigest, cd)
	}
	if len(p.Connectors) != 1 {
		t.Fatalf("connectors %+v", p.Connectors)
	}
	c := p.Connectors[0]
	if c.Ref != "meteo@1.0.0" || c.Version != "1.0.0" || c.RuntimeCapability != ConnectorRequest ||
		c.ManifestDigest != canon.DigestBytes(files["connectors/meteo/connector.yaml"]) || !canon.ValidDigest(c.ConnectorDigest) {
		t.Fatalf("binding %+v", c)
	}
	viaSkillMD, err := Build(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	viaBytes, err := BuildFiles(KindSkill, files)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaSkillMD, p) || !reflect.DeepEqual(viaBytes, p) {
		t.Fatal("the directory, its SKILL.md and its bytes build different artifacts")
	}
}

// The runtime capability role a carried connector is bound through is the
// plugin layer's.
func TestConnectorRequestIsThePluginRole(t *testing.T) {
	if ConnectorRequest != sdk.RoleConnectorRequest {
		t.Fatalf("ConnectorRequest %q, sdk.RoleConnectorRequest %q", ConnectorRequest, sdk.RoleConnectorRequest)
	}
}

// A connector a skill calls without carrying it is bound to the runtime
// capability of that name, with no digests.
func TestBuildRuntimeCapabilityBinding(t *testing.T) {
	files := skillFiles()
	delete(files, "connectors/meteo/connector.yaml")
	files["run.yaml"] = []byte("minimum_runx: 0.1.0\nmethods:\n  put:\n    steps:\n      - id: put\n        operation: store/events.append\n        inputs: { x: 1 }\n")
	p, err := BuildFiles(KindSkill, files)
	if err != nil {
		t.Fatal(err)
	}
	if want := []ConnectorBinding{{Ref: "store", RuntimeCapability: "store"}}; !reflect.DeepEqual(p.Connectors, want) {
		t.Fatalf("connectors %+v", p.Connectors)
	}
}

// A connector package is named by its manifest id, versioned sha- and the
// content digest's first 12 hex digits, and lists its operations' digests.
func TestBuildConnector(t *testing.T) {
	files := map[string][]byte{"connector.yaml": []byte(connectorYAML("acme/meteo")), "README.md": []byte("# meteo\n")}
	dir := writeTree(t, files)
	p, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	hex, _ := canon.DigestHex(p.ContentDigest)
	if p.Kind != KindConnector || p.Name != "acme/meteo" || p.Version != "sha-"+hex[:12] {
		t.Fatalf("package %+v", p)
	}
	if len(p.Operations) != 1 || p.Operations[0].Name != "forecast" || p.Operations[0].Verb != "read" || !canon.ValidDigest(p.Operations[0].Digest) {
		t.Fatalf("operations %+v", p.Operations)
	}
	if len(p.Connectors) != 1 || p.Connectors[0].Ref != "acme/meteo@1.0.0" || p.Connectors[0].ManifestDigest != canon.DigestBytes(files["connector.yaml"]) {
		t.Fatalf("connectors %+v", p.Connectors)
	}
	if q, err := Build(filepath.Join(dir, "connector.yaml")); err != nil || q.ContentDigest != p.ContentDigest {
		t.Fatalf("via connector.yaml: %v %+v", err, q)
	}
}

// .git/, .runx/, node_modules/, .DS_Store and a root signature.json are left
// out and named.
func TestBuildExcludesByName(t *testing.T) {
	files := skillFiles()
	for _, p := range []string{".git/config", ".runx/state", "node_modules/x/index.js", "tests/.DS_Store", "signature.json"} {
		files[p] = []byte("x")
	}
	p, err := Build(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".git/", ".runx/", "node_modules/", "signature.json", "tests/.DS_Store"}; !slices.Equal(p.Excluded, want) {
		t.Fatalf("excluded %v, want %v", p.Excluded, want)
	}
	for _, f := range p.Files {
		if excludedPath(f.Path) != "" {
			t.Fatalf("%s was packaged", f.Path)
		}
	}
	q, err := BuildFiles(KindSkill, files)
	if err != nil || q.ContentDigest != p.ContentDigest || !slices.Equal(q.Excluded, p.Excluded) {
		t.Fatalf("BuildFiles: %v %+v", err, q)
	}
}

// A symbolic link is refused, naming it, whether it leads inside or
// outside the package.
func TestBuildRefusesSymlink(t *testing.T) {
	dir := writeTree(t, skillFiles())
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "tests", "leak")); err != nil {
		t.Fatal(err)
	}
	_, err := Build(dir)
	wantCode(t, err, errcode.RegistrySymlinkRefused)
	if !strings.Contains(err.Error(), "tests/leak") {
		t.Fatalf("message does not name the link: %v", err)
	}
}

// A special file (a named pipe) is refused.
func TestBuildRefusesSpecialFile(t *testing.T) {
	dir := writeTree(t, skillFiles())
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skip("no fifo:", err)
	}
	_, err := Build(dir)
	wantCode(t, err, errcode.RegistryFileUnsupported)
}

// A path that could name anything outside the package is refused.
func TestBuildFilesRefusesEscapingPaths(t *testing.T) {
	for _, p := range []string{"../x", "/etc/passwd", `a\b`, "a/../b", "./a", "a//b", "", "C:x", "a/", "..", "x\x00y", "a/b\n"} {
		files := skillFiles()
		files[p] = []byte("x")
		_, err := BuildFiles(KindSkill, files)
		wantCode(t, err, errcode.RegistryPathInvalid)
	}
	files := skillFiles()
	files["tests/none.txt/inner"] = []byte("x")
	_, err := BuildFiles(KindSkill, files)
	wantCode(t, err, errcode.RegistryPathInvalid)
	files = skillFiles()
	files["tests/NONE.txt"] = []byte("x")
	_, err = BuildFiles(KindSkill, files)
	wantCode(t, err, errcode.RegistryPathInvalid)
}

// A package directory reached through a link is read; a link inside it is
// not.
func TestBuildThroughLinkedDirectory(t *testing.T) {
	dir := writeTree(t, skillFiles())
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	p, err := Build(link)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Build(dir)
	if err != nil || q.ContentDigest != p.ContentDigest {
		t.Fatalf("%v: %s != %s", err, q.ContentDigest, p.ContentDigest)
	}
}

// File count, file size and package size are bounded, with typed errors,
// and a file too large on disk is refused before it is read.
func TestBuildLimits(t *testing.T) {
	many := skillFiles()
	for i := range MaxFiles {
		many["tests/f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"-"+itoa(i)] = nil
	}
	_, err := BuildFiles(KindSkill, many)
	wantCode(t, err, errcode.RegistryTooManyFiles)
	_, err = Build(writeTree(t, many))
	wantCode(t, err, errcode.RegistryTooManyFiles)

	big := make([]byte, MaxFileBytes+1)
	files := skillFiles()
	files["big.bin"] = big
	_, err = BuildFiles(KindSkill, files)
	wantCode(t, err, errcode.RegistryFileTooLarge)

	dir := writeTree(t, skillFiles())
	if err := os.Truncate(filepath.Join(dir, "tests", "none.txt"), 1<<40); err != nil {
		t.Fatal(err)
	}
	_, err = Build(dir)
	wantCode(t, err, errcode.RegistryFileTooLarge)

	whole := skillFiles()
	chunk := big[:MaxFileBytes]
	for i := range MaxPackageBytes/MaxFileBytes + 1 {
		whole["chunk"+itoa(i)] = chunk
	}
	_, err = BuildFiles(KindSkill, whole)
	wantCode(t, err, errcode.RegistryPackageTooLarge)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// A skill with several methods, one without a description, is refused
// naming the method.
func TestBuildRefusesUndescribedMethod(t *testing.T) {
	files := skillFiles()
	files["run.yaml"] = []byte(strings.Replace(string(files["run.yaml"]), "    description: Today only.\n", "", 1))
	_, err := BuildFiles(KindSkill, files)
	wantCode(t, err, errcode.MethodDescriptionMissing)
	if !strings.Contains(err.Error(), `"today"`) || strings.Contains(err.Error(), "runx-registry-build") {
		t.Fatalf("message does not name the method: %v", err)
	}
}

// A skill's version is its SKILL.md front matter's: absent, it builds but
// is not publishable; not semver, it is refused.
func TestBuildSkillVersion(t *testing.T) {
	withVersion := func(line string) map[string][]byte {
		files := skillFiles()
		files["SKILL.md"] = []byte("---\nname: weather\ndescription: Read the weather.\n" + line + "---\n\n# weather\n\nReads.\n")
		return files
	}
	p, err := BuildFiles(KindSkill, withVersion(""))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != "" {
		t.Fatalf("version %q", p.Version)
	}
	wantCode(t, p.CheckPublish(), errcode.RegistryVersionInvalid)
	for _, bad := range []string{"version: 1.0\n", "version: v1.0.0\n", "version: 01.0.0\n", "version: 1\n", "version: latest\n", "version: 1.0.0-\n"} {
		_, err := BuildFiles(KindSkill, withVersion(bad))
		wantCode(t, err, errcode.RegistryVersionInvalid)
	}
	for _, good := range []string{"version: 1.0.0\n", "version: 0.1.0-rc.1+build.5\n", `version: "2.3.4"` + "\n"} {
		p, err := BuildFiles(KindSkill, withVersion(good))
		if err != nil {
			t.Fatalf("%s: %v", good, err)
		}
		if err := p.CheckPublish(); err != nil {
			t.Fatalf("%s: %v", good, err)
		}
	}
}

// A runx.package.json the package holds must be the one its files make.
func TestBuildManifestMustMatch(t *testing.T) {
	files := skillFiles()
	p, err := BuildFiles(KindSkill, files)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := p.manifest()
	files[ManifestFile] = m
	if q, err := BuildFiles(KindSkill, files); err != nil || q.ContentDigest != p.ContentDigest {
		t.Fatalf("the package's own manifest: %v", err)
	}
	files[ManifestFile] = []byte(`{"kind":"skill","name":"other","package_format":1,"version":"1.2.0"}`)
	_, err = BuildFiles(KindSkill, files)
	wantCode(t, err, errcode.RegistryPackageInvalid)
}

// A skill name that cannot name a directory, and a directory that is no
// package, are refused.
func TestBuildRefusesNonPackage(t *testing.T) {
	files := skillFiles()
	files["SKILL.md"] = []byte("---\nname: Weather Skill\ndescription: d\nversion: 1.0.0\n---\n\nx\n")
	_, err := BuildFiles(KindSkill, files)
	wantCode(t, err, errcode.RegistryNameInvalid)
	_, err = Build(t.TempDir())
	wantCode(t, err, errcode.RegistryPackageInvalid)
	_, err = BuildFiles("plugin", skillFiles())
	wantCode(t, err, errcode.RegistryPackageInvalid)
}
