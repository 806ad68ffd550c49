package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
)

// waitSettled waits until every file written before the call
// has a change time older than the stamp caches' racy window (2 s,
// kernel/pkg/digestcache.go), so loads of it are remembered: a change time
// cannot be set back, so only time passing makes it old.
func waitSettled(t *testing.T) {
	t.Helper()
	time.Sleep(2*time.Second + 100*time.Millisecond)
}

// Runs served from a remembered load change nothing in it: after several
// runs of every method (literal nested inputs, defaults of object type,
// a fan-out, a module with an environment, outputs with a schema), the
// package the kernel loads is still the one the files give. A run that
// wrote into the shared model would fail this.
func TestRunLeavesTheLoadedPackageUnchanged(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the stamp caches read Linux stat fields")
	}
	k, _ := stubKernel(t)
	dir := writeSkill(t, k, "shared", `default_method: all
methods:
  all:
    description: Every kind of input a run reads.
    inputs:
      opts: { type: object, default: { depth: 1, tags: [a, b] } }
      xs: { type: array, default: [1, 2] }
      word: { type: string, required: true, schema: { minLength: 1 } }
    outputs:
      echoed: { type: object }
    steps:
      - id: lit
        tool: stub.echo
        inputs: { nested: { list: [1, { deep: x }], s: "$$literal" }, opts: $input.opts, word: $input.word }
      - id: fan
        tool: stub.echo
        for_each: $input.xs
        inputs: { n: $item }
      - id: mod
        tool: { module: m.mjs, environment: { MODE: fast } }
        inputs: { from: $steps.lit.nested }
      - id: echoed
        tool: stub.echo
        inputs: { echoed: $steps.lit.opts }
        outputs:
          echoed: { type: object, schema: { type: object, required: [depth] } }
  other:
    description: A second method.
    steps:
      - { id: a, tool: stub.echo, inputs: { x: 1 } }
`, map[string]string{"m.mjs": "export default (x) => x\n"})
	waitSettled(t)

	first, _, err := k.LoadSkill(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{`{"word":"one"}`, `{"word":"two","opts":{"depth":3}}`, `{"word":"three","xs":[7]}`} {
		if env := runSkill(t, k, dir, "all", in, ""); env.Status != contract.StatusSealed {
			t.Fatalf("run %s: %s %v", in, env.Status, env.Error)
		}
	}
	if env := runSkill(t, k, dir, "other", `{}`, ""); env.Status != contract.StatusSealed {
		t.Fatalf("run other: %s %v", env.Status, env.Error)
	}
	again, _, err := k.LoadSkill(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Methods[0] != first.Methods[0] {
		t.Fatal("the runs were not served from the remembered load, so this test shows nothing")
	}
	fresh, err := pkg.Load(dir, pkg.LoadOptions{RunxVersion: k.Options.RunxVersion})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Methods, fresh.Methods) || !reflect.DeepEqual(again.Connectors, fresh.Connectors) ||
		!reflect.DeepEqual(again.Metadata, fresh.Metadata) || jsonText(t, again) != jsonText(t, fresh) {
		t.Fatalf("runs changed the remembered package:\n%+v\nthe files give:\n%+v", again.Methods[0].Steps[0], fresh.Methods[0].Steps[0])
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// A package's module sources are gathered again after any edit between two
// runs, and served from memory only while nothing changed.
func TestReadModuleFilesSeesEveryEdit(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the stamp caches read Linux stat fields")
	}
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(what string, want map[string]string) map[string]string {
		t.Helper()
		got, err := readModuleFiles(&pkg.Package{Dir: dir})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v %v, want %v", what, got, err, want)
		}
		return got
	}
	// fromMemory: a gathering from memory shares the remembered strings.
	fromMemory := func(a, b map[string]string) bool {
		for k, v := range a {
			if unsafe.StringData(v) != unsafe.StringData(b[k]) {
				return false
			}
		}
		return len(a) > 0
	}
	write("a.mjs", "export const a = 1")
	write("lib/b.js", "b")
	write("notes.txt", "not a module")
	waitSettled(t)
	first := read("first", map[string]string{"a.mjs": "export const a = 1", "lib/b.js": "b"})
	if again := read("unchanged", first); !fromMemory(first, again) {
		t.Fatal("unchanged sources were gathered again")
	}
	again := read("unchanged", first)
	again["a.mjs"] = "a caller's change"
	read("after a caller changed its copy", map[string]string{"a.mjs": "export const a = 1", "lib/b.js": "b"})

	write("a.mjs", "export const a = 2") // same size
	read("rewritten", map[string]string{"a.mjs": "export const a = 2", "lib/b.js": "b"})
	write("lib/c.mjs", "c")
	read("added", map[string]string{"a.mjs": "export const a = 2", "lib/b.js": "b", "lib/c.mjs": "c"})

	waitSettled(t)
	settled := read("settled", map[string]string{"a.mjs": "export const a = 2", "lib/b.js": "b", "lib/c.mjs": "c"})
	if again := read("settled", settled); !fromMemory(settled, again) {
		t.Fatal("unchanged sources were gathered again")
	}
	if err := os.Remove(filepath.Join(dir, "lib/c.mjs")); err != nil {
		t.Fatal(err)
	}
	read("removed", map[string]string{"a.mjs": "export const a = 2", "lib/b.js": "b"})
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "lib/d.js")); err != nil {
		t.Fatal(err)
	}
	if _, err := readModuleFiles(&pkg.Package{Dir: dir}); contract.CodeOf(err) != "module_symlink_refused" {
		t.Fatalf("a symlink added: %v", err)
	}
}

// A run of a package Load checked gets the module sources of the files it
// checked, the files its digest names, even when one is edited after the
// load; the next load sees the edit and its run the new sources.
func TestModuleSourcesAreTheLoadedFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the stamp caches read Linux stat fields")
	}
	k, _ := stubKernel(t)
	dir := writeSkill(t, k, "sources", `methods:
  m:
    steps:
      - { id: a, tool: { module: m.mjs } }
`, map[string]string{"m.mjs": "export default () => 1\n"})
	waitSettled(t)
	load := func() *pkg.Package {
		t.Helper()
		p, _, err := k.LoadSkill(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sources := func(p *pkg.Package, want string) {
		t.Helper()
		files, err := readModuleFiles(p)
		if err != nil || files["m.mjs"] != string(want) {
			t.Fatalf("sources %q %v, want %q", files["m.mjs"], err, want)
		}
	}
	first := load()
	sources(first, "export default () => 1\n")
	if err := os.WriteFile(filepath.Join(dir, "m.mjs"), []byte("export default () => 22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sources(first, "export default () => 1\n")
	second := load()
	if second.Digest == first.Digest {
		t.Fatal("the edit was not seen by the next load")
	}
	sources(second, "export default () => 22\n")
	if env := runSkill(t, k, dir, "m", `{}`, ""); env.Status != contract.StatusSealed {
		t.Fatalf("run: %s %v", env.Status, env.Error)
	}
}
