package engine

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestSourceValidateRefusesBadNames(t *testing.T) {
	for _, name := range []string{"", "./main.mjs", "a//b.mjs", "a/../b.mjs", "/abs.mjs", "../up.mjs", `a\b.mjs`, "nul\x00.mjs", "readme.md", "lib/"} {
		src := closure("main.mjs", map[string]string{"main.mjs": "export default () => ({})", name: ""})
		_, err := src.validate()
		if err == nil || err.Code != errcode.ModuleSourceInvalid {
			t.Errorf("file %q: got %v, want %s", name, err, errcode.ModuleSourceInvalid)
		}
	}
}

func TestSourceValidateSize(t *testing.T) {
	half := strings.Repeat(" ", MaxSourceBytes/2)
	ok := closure("main.mjs", map[string]string{"main.mjs": half, "b.mjs": half})
	if _, err := ok.validate(); err != nil {
		t.Fatalf("a closure of exactly %d bytes: %v", MaxSourceBytes, err)
	}
	over := closure("main.mjs", map[string]string{"main.mjs": half, "b.mjs": half + " "})
	if _, err := over.validate(); err == nil || err.Code != errcode.ModuleSourceTooLarge {
		t.Fatalf("a closure one byte over: got %v, want %s", err, errcode.ModuleSourceTooLarge)
	}
}

func TestSourceEntryForms(t *testing.T) {
	files := map[string]string{"main.mjs": "", "lib/x.js": ""}
	for entry, want := range map[string]string{"main.mjs": "main.mjs", "./main.mjs": "main.mjs", "lib/x.js": "lib/x.js", "./lib/../main.mjs": "main.mjs"} {
		got, err := closure(entry, files).validate()
		if err != nil || got != want {
			t.Errorf("entry %q: got (%q, %v), want %q", entry, got, err, want)
		}
	}
	for entry, code := range map[string]string{
		"missing.mjs": "module_import_missing", "/main.mjs": "module_import_absolute", "../main.mjs": "module_import_escape",
		"main": "module_import_extension", "https://x/main.mjs": "module_import_url", "": "module_import_missing",
	} {
		if _, err := closure(entry, files).validate(); err == nil || string(err.Code) != code {
			t.Errorf("entry %q: got %v, want %s", entry, err, code)
		}
	}
}

func TestSourceDigest(t *testing.T) {
	a := closure("main.mjs", map[string]string{"main.mjs": "x", "b.mjs": "y"})
	if a.digest() != closure("main.mjs", map[string]string{"b.mjs": "y", "main.mjs": "x"}).digest() {
		t.Fatal("the digest depends on map order")
	}
	for _, other := range []Source{
		closure("b.mjs", map[string]string{"main.mjs": "x", "b.mjs": "y"}),
		closure("main.mjs", map[string]string{"main.mjs": "x", "b.mjs": "y "}),
		closure("main.mjs", map[string]string{"main.mjsx": "", "b.mjs": "y"}), // name/body framing
		closure("main.mjs", map[string]string{"main.mjs": "x"}),
	} {
		if a.digest() == other.digest() {
			t.Errorf("closures %v and %v share a digest", a, other)
		}
	}
	if !strings.HasPrefix(a.digest(), "sha256:") || len(a.digest()) != len("sha256:")+64 {
		t.Fatalf("digest %q is not sha256:<64 hex>", a.digest())
	}
}
