package pkg

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

const cachedRunYAML = `minimum_runx: 0.1.0
methods:
  main:
    steps:
      - id: first
        tool: { module: compose.mjs }
        inputs: { n: 1, s: "two", f: 2.5, ok: true, nothing: null, list: [a, { b: c }] }
`

func cachedPackage(t *testing.T) string {
	return writePackage(t, map[string]string{
		"SKILL.md":    testSkillMD,
		"run.yaml":    cachedRunYAML,
		"compose.mjs": "export default () => ({})\n",
	})
}

// entries lists the cache's entry files.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	got, err := filepath.Glob(filepath.Join(dir, "*.plan"))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func loadWith(t *testing.T, dir string, c *PlanCache) *Package {
	t.Helper()
	p, err := Load(dir, LoadOptions{RunxVersion: testRunx, Cache: c})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

// TestPlanCacheServesAnUnchangedPackage: a second process (a new cache on
// the same directory) reads the document from disk, and the package it
// loads is the one an uncached load gives, positions included.
func TestPlanCacheServesAnUnchangedPackage(t *testing.T) {
	pkgDir, cacheDir := cachedPackage(t), t.TempDir()
	want := loadWith(t, pkgDir, nil)
	first := loadWith(t, pkgDir, NewPlanCache(cacheDir))
	files := entries(t, cacheDir)
	if len(files) != 1 {
		t.Fatalf("cache holds %d entries, want 1", len(files))
	}
	fresh := NewPlanCache(cacheDir)
	src, err := os.ReadFile(filepath.Join(pkgDir, ProfileFile))
	if err != nil {
		t.Fatal(err)
	}
	key := planKey(want.Digest, ProfileFile, src)
	if fresh.get(key) == nil {
		t.Fatal("a new cache on the same directory does not find the entry")
	}
	second := loadWith(t, pkgDir, NewPlanCache(cacheDir))
	for _, got := range []*Package{first, second} {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cached load differs:\n%+v\nwant\n%+v", got.Methods[0].Steps[0], want.Methods[0].Steps[0])
		}
	}
	if info, err := os.Stat(filepath.Join(cacheDir, planKeyFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
}

// TestPlanCacheIgnoresCorruptAndTamperedEntries: an entry with a flipped
// byte, a truncated one, one whose tree was replaced (a different step id,
// tag left as it was) and one signed with another key are all ignored: the
// load parses the file, gives the true package, and rewrites the entry.
func TestPlanCacheIgnoresCorruptAndTamperedEntries(t *testing.T) {
	pkgDir, cacheDir := cachedPackage(t), t.TempDir()
	want := loadWith(t, pkgDir, nil)
	loadWith(t, pkgDir, NewPlanCache(cacheDir))
	path := entries(t, cacheDir)[0]
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := os.ReadFile(filepath.Join(cacheDir, planKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Base(path[:len(path)-len(".plan")])
	head := len(planCacheSchema) + 1 + 32

	tree, err := parseStrict("run.yaml", []byte(replaceStepID(cachedRunYAML)), 0)
	if err != nil {
		t.Fatal(err)
	}
	otherKey := make([]byte, 32)
	cases := map[string][]byte{
		"flipped byte":    flip(good, len(good)-3),
		"truncated":       good[:len(good)-5],
		"replaced tree":   append(append([]byte{}, good[:head]...), encodePlanTree(tree)...),
		"another key":     sealEntry(otherKey, key, encodePlanTree(tree)),
		"another package": sealEntry(secret, planKey("sha256:other", ProfileFile, []byte(cachedRunYAML)), encodePlanTree(tree)),
		"wrong schema":    append([]byte("runx.plan-cache.v0\n"), good[len(planCacheSchema)+1:]...),
		"empty":           {},
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			got := loadWith(t, pkgDir, NewPlanCache(cacheDir))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("a bad entry was trusted: step %q", got.Methods[0].Steps[0].ID)
			}
			again, err := os.ReadFile(path)
			if err != nil || string(again) != string(good) {
				t.Fatalf("the entry was not rewritten (%v)", err)
			}
		})
	}
}

func replaceStepID(src string) string {
	out := []byte(src)
	i := len("minimum_runx: 0.1.0\nmethods:\n  main:\n    steps:\n      - id: ")
	copy(out[i:], "forge")
	return string(out)
}

func flip(b []byte, i int) []byte {
	out := append([]byte{}, b...)
	out[i] ^= 0x40
	return out
}

// TestPlanCacheMissesAChangedPackage: editing run.yaml changes the key, so
// the old reading is never served.
func TestPlanCacheMissesAChangedPackage(t *testing.T) {
	pkgDir, cache := cachedPackage(t), NewPlanCache(t.TempDir())
	loadWith(t, pkgDir, cache)
	if err := os.WriteFile(filepath.Join(pkgDir, ProfileFile), []byte(replaceStepID(cachedRunYAML)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := loadWith(t, pkgDir, cache); got.Methods[0].Steps[0].ID != "forge" {
		t.Fatalf("a changed run.yaml was served its old reading: step %q", got.Methods[0].Steps[0].ID)
	}
}

// TestPlanCacheRefusesAnExposedKey: a key others can read could forge
// entries, so the cache keeps to memory and writes nothing.
func TestPlanCacheRefusesAnExposedKey(t *testing.T) {
	pkgDir, cacheDir := cachedPackage(t), t.TempDir()
	if err := os.WriteFile(filepath.Join(cacheDir, planKeyFile), make([]byte, 32), 0o644); err != nil {
		t.Fatal(err)
	}
	loadWith(t, pkgDir, NewPlanCache(cacheDir))
	if got := entries(t, cacheDir); len(got) != 0 {
		t.Fatalf("entries written under an exposed key: %v", got)
	}
}

// TestPlanCodecRoundTrip holds the entry encoding to the tree it encodes,
// positions included, on the planning workload and the corpus.
func TestPlanCodecRoundTrip(t *testing.T) {
	docs := append(yamlCorpus(t), corpusDoc{name: "planning", src: []byte(planningProfile(200))})
	for _, doc := range docs {
		tree, err := parseStrict("f.yaml", doc.src, doc.lineOffset)
		if err != nil {
			continue
		}
		back, err := decodePlanTree(encodePlanTree(tree))
		if err != nil {
			t.Fatalf("%s: %v", doc.name, err)
		}
		if d := diffNodes("", tree, back, true); d != "" {
			t.Fatalf("%s: differs at %s", doc.name, d)
		}
	}
}

// FuzzPlanCodec: decoding any bytes never panics, and what decodes
// survives a re-encoding unchanged.
func FuzzPlanCodec(f *testing.F) {
	tree, err := parseStrict("run.yaml", []byte(cachedRunYAML), 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encodePlanTree(tree))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := decodePlanTree(b)
		if err != nil {
			return
		}
		again, err := decodePlanTree(encodePlanTree(n))
		if err != nil {
			t.Fatal(err)
		}
		if d := diffNodes("", n, again, true); d != "" {
			t.Fatalf("re-encodes differently at %s", d)
		}
	})
}

// TestFrontMatterCacheServesOnlyTheSameBytes: a second load of an unchanged
// SKILL.md takes its front matter from memory and gives the package an
// uncached load gives; an edit to the front matter is read, not served
// from the cache; a front matter that does not parse is refused each time.
func TestFrontMatterCacheServesOnlyTheSameBytes(t *testing.T) {
	pkgDir, cache := cachedPackage(t), NewPlanCache("")
	want := loadWith(t, pkgDir, nil)
	loadWith(t, pkgDir, cache)
	skill, err := os.ReadFile(filepath.Join(pkgDir, SkillFile))
	if err != nil {
		t.Fatal(err)
	}
	front, _, ok := cutFrontMatter(skill[len("---\n"):])
	if !ok || cache.mem[frontMatterKey(front)] == nil {
		t.Fatal("the front matter was not kept in memory")
	}
	if got := loadWith(t, pkgDir, cache); !reflect.DeepEqual(got, want) {
		t.Fatalf("cached load differs:\n%+v\nwant\n%+v", got, want)
	}
	edited := strings.Replace(string(skill), "description: ", "description: Edited. ", 1)
	if edited == string(skill) {
		t.Fatalf("test SKILL.md has no description line: %s", skill)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, SkillFile), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := loadWith(t, pkgDir, cache); !strings.HasPrefix(got.Description, "Edited. ") {
		t.Fatalf("an edited SKILL.md was served its old reading: %q", got.Description)
	}
	broken := strings.Replace(edited, "description: ", "description: [", 1)
	if err := os.WriteFile(filepath.Join(pkgDir, SkillFile), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := Load(pkgDir, LoadOptions{RunxVersion: testRunx, Cache: cache})
		if e, ok := err.(*Error); !ok || e.Code != errcode.SkillMDInvalid {
			t.Fatalf("broken front matter: %v, want %s", err, errcode.SkillMDInvalid)
		}
	}
}
