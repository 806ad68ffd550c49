package pkg

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// settledTrees makes every stamp old enough to remember, for the test.
func settledTrees(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the stamp caches read Linux stat fields")
	}
	w := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = w })
}

// loadTwice loads dir with the plan cache c and with none, and fails
// unless both give the same package or the same refusal: a load served
// from memory is exactly what reading the files gives.
func loadTwice(t *testing.T, dir, runx string, c *PlanCache) (*Package, error) {
	t.Helper()
	got, err := Load(dir, LoadOptions{RunxVersion: runx, Cache: c})
	want, wantErr := Load(dir, LoadOptions{RunxVersion: runx})
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("cached load: %v; uncached: %v", err, wantErr)
	}
	var e, we *Error
	if errors.As(err, &e) && (!errors.As(wantErr, &we) || e.Code != we.Code || e.Message != we.Message ||
		e.File != we.File || e.Line != we.Line || e.Column != we.Column) {
		t.Fatalf("cached refusal %+v, uncached %+v", e, we)
	}
	if err == nil && !reflect.DeepEqual(withoutTree(got), want) {
		t.Fatalf("cached load differs from the files:\n%+v\n%+v", got, want)
	}
	return got, err
}

// withoutTree is p without the listing a cached load carries, which an
// uncached load does not.
func withoutTree(p *Package) *Package {
	c := *p
	c.tree = nil
	return &c
}

// fromMemory reports whether two loads share their methods, which only a
// load served from memory does.
func fromMemory(a, b *Package) bool {
	return len(a.Methods) > 0 && len(b.Methods) > 0 && a.Methods[0] == b.Methods[0]
}

// Every kind of edit between two loads is seen by the second: SKILL.md,
// run.yaml, a module removed and restored, a connector added, and a file
// rewritten with the same bytes; an unchanged package is served from
// memory, and a load is not remembered while its files are in the racy
// window.
func TestLoadCacheSeesEveryEdit(t *testing.T) {
	settledTrees(t)
	dir := cachedPackage(t)
	c := NewPlanCache("")
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func(what string) *Package {
		t.Helper()
		p, err := loadTwice(t, dir, testRunx, c)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		again, _ := loadTwice(t, dir, testRunx, c)
		if !fromMemory(p, again) {
			t.Fatalf("%s: an unchanged package was not served from memory", what)
		}
		return again
	}
	first := load("first")
	if first.Description != "A sample package." || first.Methods[0].Description != first.Description {
		t.Fatalf("first load: %+v", first)
	}

	write("SKILL.md", strings.Replace(testSkillMD, "A sample package.", "A changed package, longer.", 1))
	p := load("SKILL.md edited")
	if fromMemory(first, p) || p.Description != "A changed package, longer." || p.Digest == first.Digest {
		t.Fatalf("SKILL.md edit not seen: %q %s", p.Description, p.Digest)
	}

	write("run.yaml", strings.Replace(cachedRunYAML, "  main:\n", "  main:\n    description: The main method, edited.\n", 1))
	prev := p
	p = load("run.yaml edited")
	if fromMemory(prev, p) || p.Methods[0].Description != "The main method, edited." {
		t.Fatalf("run.yaml edit not seen: %q", p.Methods[0].Description)
	}

	if err := os.Remove(filepath.Join(dir, "compose.mjs")); err != nil {
		t.Fatal(err)
	}
	_, err := loadTwice(t, dir, testRunx, c)
	wantRefusal(t, err, errcode.StepInvalid, 6, 9)
	write("compose.mjs", "export default () => ({ back: true })\n")
	prev = p
	p = load("module restored")
	if fromMemory(prev, p) {
		t.Fatal("a load from before the module was removed was served")
	}

	forge, err := os.ReadFile("testdata/connected/connectors/forge/connector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write("connectors/forge/connector.yaml", string(forge))
	prev = p
	p = load("connector added")
	if fromMemory(prev, p) || p.Connectors["forge"] == nil {
		t.Fatalf("connector not seen: %v", p.Connectors)
	}

	// The same bytes written again: a new stamp, so a new load.
	write("SKILL.md", strings.Replace(testSkillMD, "A sample package.", "A changed package, longer.", 1))
	prev = p
	p = load("same bytes rewritten")
	if fromMemory(prev, p) || p.Digest != prev.Digest {
		t.Fatalf("rewrite with the same bytes: from memory %v, digest %s then %s", fromMemory(prev, p), prev.Digest, p.Digest)
	}

	// Inside the racy window nothing is remembered.
	racyWindow = time.Hour
	write("SKILL.md", testSkillMD)
	a, _ := loadTwice(t, dir, testRunx, c)
	b, _ := loadTwice(t, dir, testRunx, c)
	if fromMemory(a, b) || a.Description != "A sample package." {
		t.Fatalf("a load inside the racy window was remembered (%v) or stale: %q", fromMemory(a, b), a.Description)
	}
}

// A refused package is refused the same way, code and position, on every
// load with a cache; and a remembered load is not served to a runx older
// than its minimum_runx.
func TestLoadCacheRefusesAsAFullLoad(t *testing.T) {
	settledTrees(t)
	c := NewPlanCache("")
	for _, tc := range []struct {
		name, runYAML, code string
		line, col           int
	}{
		{"newer runx", "minimum_runx: 9.0.0\nmethods: {}\n", "minimum_runx_unsupported", 1, 15},
		{"no methods", "minimum_runx: 0.1.0\n", "method_invalid", 1, 1},
		{"bad yaml", "minimum_runx: 0.1.0\nmethods: [\n", "runx_yaml_invalid", 0, 0},
		{"missing module", "minimum_runx: 0.1.0\nmethods:\n  m:\n    steps:\n      - id: a\n        tool: { module: gone.mjs }\n", "step_invalid", 5, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writePackage(t, map[string]string{"SKILL.md": testSkillMD, "run.yaml": tc.runYAML})
			for range 3 {
				_, err := loadTwice(t, dir, testRunx, c)
				wantRefusal(t, err, errcode.Code(tc.code), tc.line, tc.col)
			}
		})
	}

	dir := writePackage(t, map[string]string{
		"SKILL.md":    testSkillMD,
		"run.yaml":    strings.Replace(cachedRunYAML, "0.1.0", "0.2.0", 1),
		"compose.mjs": "export default () => ({})\n",
	})
	for range 2 {
		if _, err := loadTwice(t, dir, "0.3.0", c); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		_, err := loadTwice(t, dir, "0.1.0", c)
		wantRefusal(t, err, errcode.MinimumRunxUnsupported, 1, 15)
	}
}

// A caller owns the Package it gets: assigning its fields, its Methods
// elements or its maps' entries never reaches another caller's load.
func TestLoadCacheCallersShareNothingTheyChange(t *testing.T) {
	settledTrees(t)
	dir := writePackage(t, map[string]string{
		"SKILL.md":    "---\nname: sample\ndescription: A sample package.\nlicense: MIT\n---\nDo the thing.\n",
		"run.yaml":    cachedRunYAML,
		"compose.mjs": "export default () => ({})\n",
		"connectors/forge/connector.yaml": func() string {
			b, err := os.ReadFile("testdata/connected/connectors/forge/connector.yaml")
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}(),
	})
	c := NewPlanCache("")
	first, _ := loadTwice(t, dir, testRunx, c)
	second, _ := loadTwice(t, dir, testRunx, c)
	if !fromMemory(first, second) {
		t.Fatal("the second load was not served from memory")
	}
	second.Name, second.Digest, second.Implicit = "changed", "sha256:0", true
	second.Methods[0] = &Method{Name: "other"}
	second.Methods = append(second.Methods, &Method{Name: "more"})
	second.Metadata["license"] = "changed"
	second.Metadata["added"] = true
	delete(second.Connectors, "forge")
	second.Connectors["other"] = nil
	third, _ := loadTwice(t, dir, testRunx, c) // compares with the files
	if !fromMemory(first, third) {
		t.Fatal("the third load was not served from memory")
	}
}

// Loads at once share the remembered package without a race (run with
// -race), each getting what the files give.
func TestLoadCacheConcurrentLoads(t *testing.T) {
	settledTrees(t)
	dir := cachedPackage(t)
	want, err := Load(dir, LoadOptions{RunxVersion: testRunx})
	if err != nil {
		t.Fatal(err)
	}
	c := NewPlanCache("")
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 25 {
				p, err := Load(dir, LoadOptions{RunxVersion: testRunx, Cache: c})
				if err == nil && !reflect.DeepEqual(withoutTree(p), want) {
					err = errors.New("a concurrent load differs from the files")
				}
				if err != nil {
					errs <- err
					return
				}
				p.Name, p.Methods[0] = "mine", nil
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// DeriveFromTree rebuilds after any edit, keeps no error, and keeps
// nothing made inside the racy window.
func TestDeriveFromTree(t *testing.T) {
	settledTrees(t)
	dir := writePackage(t, map[string]string{"a.js": "1"})
	builds := 0
	derive := func() (string, error) {
		v, err := DeriveFromTree(dir, "names", func(entries []TreeEntry) (any, error) {
			builds++
			var names []string
			for _, e := range entries {
				raw, err := ReadFileCached(e.Path, 1<<20)
				if err != nil {
					return nil, err
				}
				if string(raw) == "fail" {
					return nil, errors.New("refused")
				}
				names = append(names, e.Rel+"="+string(raw))
			}
			return strings.Join(names, ","), nil
		})
		if err != nil {
			return "", err
		}
		return v.(string), nil
	}
	want := func(what, value string, n int) {
		t.Helper()
		got, err := derive()
		if err != nil || got != value || builds != n {
			t.Fatalf("%s: %q %v after %d builds, want %q after %d", what, got, err, builds, value, n)
		}
	}
	want("first", "a.js=1", 1)
	want("unchanged", "a.js=1", 1)
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("22"), 0o644); err != nil {
		t.Fatal(err)
	}
	want("rewritten", "a.js=22", 2)
	if err := os.WriteFile(filepath.Join(dir, "b.js"), []byte("fail"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := derive(); err == nil || builds != 3+i {
			t.Fatalf("a failed build: %v after %d builds", err, builds)
		}
	}
	if err := os.Remove(filepath.Join(dir, "b.js")); err != nil {
		t.Fatal(err)
	}
	want("removed", "a.js=22", 5)
	want("unchanged again", "a.js=22", 5)
	racyWindow = time.Hour
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("333"), 0o644); err != nil {
		t.Fatal(err)
	}
	want("racy", "a.js=333", 6)
	want("racy again", "a.js=333", 7)
}

// BenchmarkLoadUnchanged is what each call of a server costs to load its
// unchanged package (examples/hello-world) with the plan cache: from
// memory, its listing's stamps checked.
func BenchmarkLoadUnchanged(b *testing.B) {
	dir, err := filepath.Abs("../../examples/hello-world")
	if err != nil {
		b.Fatal(err)
	}
	opts := LoadOptions{RunxVersion: testRunx, Cache: NewPlanCache("")}
	if _, err := Load(dir, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Load(dir, opts); err != nil {
			b.Fatal(err)
		}
	}
}
