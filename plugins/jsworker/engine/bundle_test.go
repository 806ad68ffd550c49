package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// refusedBundle asserts that bundling files (entry main.mjs) is refused with code.
func refusedBundle(t *testing.T, code errcode.Code, files map[string]string) *Error {
	t.Helper()
	start := time.Now()
	_, err := NewCache(0).Bundle(closure("main.mjs", files))
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("bundling took %v", took)
	}
	return wantCode(t, err, code)
}

func TestBundleRefusesImports(t *testing.T) {
	cases := []struct {
		name, code, main string
	}{
		{"node builtin", "module_import_builtin", `import fs from "node:fs"; export default () => ({ fs })`},
		{"bare builtin", "module_import_builtin", `import { readFileSync } from "fs"; export default () => ({})`},
		{"bare package", "module_import_bare", `import _ from "lodash"; export default () => ({})`},
		{"url", "module_import_url", `import x from "https://example.com/x.mjs"; export default () => ({})`},
		{"absolute", "module_import_absolute", `import x from "/etc/x.mjs"; export default () => ({})`},
		{"escape", "module_import_escape", `import x from "../outside.mjs"; export default () => ({})`},
		{"missing", "module_import_missing", `import x from "./nope.mjs"; export default () => ({})`},
		{"extension", "module_import_extension", `import x from "./util"; export default () => ({})`},
		{"json", "module_import_extension", `import x from "./data.json"; export default () => ({})`},
		{"re-export", "module_import_bare", `export { x } from "pkg"; export default () => ({})`},
		{"dynamic literal", "module_import_dynamic", `export default async () => ({ m: await import("./util.mjs") })`},
		{"dynamic computed", "module_import_dynamic", `export default async (i) => ({ m: await import(i.path) })`},
		{"require literal", "module_import_dynamic", `export default () => ({ m: require("./util.mjs") })`},
		{"require computed", "module_import_dynamic", `export default (i) => ({ m: require(i.path) })`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := refusedBundle(t, errcode.Code(c.code), map[string]string{"main.mjs": c.main, "util.mjs": "export default 1"})
			if e.Discard {
				t.Errorf("a refused import asks to discard the process")
			}
		})
	}
}

func TestBundleRefusesTransitiveImport(t *testing.T) {
	e := refusedBundle(t, errcode.ModuleImportBuiltin, map[string]string{
		"main.mjs":    `import { f } from "./lib/a.mjs"; export default () => ({ v: f() })`,
		"lib/a.mjs":   `export { f } from "./b.mjs"`,
		"lib/b.mjs":   `import os from "node:os"; export const f = () => os.hostname()`,
		"unused.mjs":  `import "node:fs"`, // never imported, so never refused
		"lib/ok.mjs":  `export default 1`,
		"lib/not.mjs": `export default 2`,
	})
	if !strings.Contains(e.Message, "lib/b.mjs") || !strings.Contains(e.Message, "node:os") {
		t.Fatalf("the refusal does not name the importer and the specifier: %s", e.Message)
	}
}

func TestBundleRefusesMissingDefaultExport(t *testing.T) {
	refusedBundle(t, errcode.ModuleNoDefaultExport, map[string]string{"main.mjs": `export const f = () => ({})`})
	refusedBundle(t, errcode.ModuleNoDefaultExport, map[string]string{"main.mjs": `const x = 1`})

	notFunction := compileModule(t, `export default { a: 1 }`)
	_, err := call(t, notFunction, `{}`, 5*time.Second)
	wantCode(t, err, errcode.ModuleNoDefaultExport)
}

func TestBundleRefusesSyntaxErrors(t *testing.T) {
	e := refusedBundle(t, errcode.ModuleSyntaxError, map[string]string{"main.mjs": "export default function ( {"})
	if !strings.Contains(e.Message, "main.mjs:") {
		t.Fatalf("the syntax error does not say where: %s", e.Message)
	}
	refusedBundle(t, errcode.ModuleSyntaxError, map[string]string{"main.mjs": "await 1; export default () => ({})"})
}

func TestBundleRefusesOversizedSource(t *testing.T) {
	refusedBundle(t, errcode.ModuleSourceTooLarge, map[string]string{
		"main.mjs": "export default () => ({})",
		"big.mjs":  strings.Repeat("/", MaxSourceBytes),
	})
}

func TestBundleRefusesDeepNesting(t *testing.T) {
	bomb := "export default () => ({ x: " + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + " })"
	refusedBundle(t, errcode.ModuleSourceTooDeep, map[string]string{"main.mjs": bomb})
	arrows := "export default () => ({ f: " + strings.Repeat("a=>", 150000) + "1 })"
	refusedBundle(t, errcode.ModuleSourceTooDeep, map[string]string{"main.mjs": arrows})
}

func TestBundleRelativeImports(t *testing.T) {
	p := compileClosure(t, closure("main.mjs", map[string]string{
		"main.mjs":          `import { greet } from "./lib/greet.mjs"; import * as n from "./num.js"; export default (i) => ({ g: greet(i.name), n: n.two })`,
		"lib/greet.mjs":     `import { punct } from "../lib/sub/punct.mjs"; export const greet = (n) => "hi " + n + punct`,
		"lib/sub/punct.mjs": `export const punct = "!"`,
		"num.js":            `export const two = 2`,
	}))
	res, err := call(t, p, `{"name":"ada"}`, 5*time.Second)
	wantOutput(t, res, err, `{"g":"hi ada!","n":2}`)
}

func TestBundleCache(t *testing.T) {
	src := closure("main.mjs", map[string]string{"main.mjs": `export default () => ({ a: 1 })`})
	c := NewCache(DefaultCacheBytes)
	p1, err := c.Bundle(src)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := c.Bundle(closure("main.mjs", map[string]string{"main.mjs": `export default () => ({ a: 1 })`}))
	if err != nil {
		t.Fatal(err)
	}
	if p1 != p2 {
		t.Fatal("an identical closure was compiled twice")
	}
	p3, err := c.Bundle(closure("main.mjs", map[string]string{"main.mjs": `export default () => ({ a: 2 })`}))
	if err != nil || p3 == p1 {
		t.Fatalf("a changed closure reused the old program (err %v)", err)
	}
	if c.Len() != 2 {
		t.Fatalf("cache holds %d programs, want 2", c.Len())
	}

	none := NewCache(0)
	q1, _ := none.Bundle(src)
	q2, _ := none.Bundle(src)
	if q1 == q2 || none.Len() != 0 {
		t.Fatal("NewCache(0) cached a program")
	}
}

func TestBundleCacheEvictsLeastRecentlyUsed(t *testing.T) {
	src := func(n string) Source {
		return closure("main.mjs", map[string]string{"main.mjs": `export default () => ({ n: "` + n + `" })`})
	}
	probe, _ := NewCache(0).Bundle(src("a"))
	c := NewCache(2*probe.size + probe.size/2) // room for two programs
	a, _ := c.Bundle(src("a"))
	c.Bundle(src("b"))
	c.Bundle(src("a")) // a is now the most recently used
	c.Bundle(src("c")) // evicts b
	if c.Len() != 2 {
		t.Fatalf("cache holds %d programs, want 2", c.Len())
	}
	if again, _ := c.Bundle(src("a")); again != a {
		t.Fatal("the most recently used program was evicted")
	}
	if c.get(src("b").digest()) != nil {
		t.Fatal("the least recently used program was kept")
	}
}

func TestBundleMentionsBuffers(t *testing.T) {
	for text, want := range map[string]bool{
		`export default () => ({})`:                                      false,
		`export default () => ({ n: new Uint8Array(2).length })`:         true,
		`export default () => ({ n: globalThis["Uint" + "8Array"] })`:    true,
		`export default () => ({ n: typeof ArrayBuffer })`:               true,
		`export default () => ({ s: "Float64Array is mentioned here" })`: true,
	} {
		if got := compileModule(t, text).usesBuffers; got != want {
			t.Errorf("%s: usesBuffers %v, want %v", text, got, want)
		}
	}
}

// The bundle hands the entry's default export to the engine through one
// global (bundleGlobal), without esbuild's exports-object helpers, whose
// run-time work every call paid for.
func TestBundleCarriesTheDefaultWithoutExportHelpers(t *testing.T) {
	src := closure("main.mjs", map[string]string{
		"main.mjs": `import { twice } from "./lib.mjs"; export default function (input) { return { n: twice(input.n) } }`,
		"lib.mjs":  `export const twice = (n) => 2 * n;`,
	})
	entry, refusal := src.validate()
	if refusal != nil {
		t.Fatal(refusal)
	}
	js, refusal := bundle(src, entry, nil)
	if refusal != nil {
		t.Fatal(refusal)
	}
	for _, helper := range []string{"__export", "__toCommonJS", "__copyProps", "defineProperty"} {
		if strings.Contains(js, helper) {
			t.Errorf("the bundle still carries %s:\n%s", helper, js)
		}
	}
	res, err := call(t, compileClosure(t, src), `{"n":21}`, 5*time.Second)
	if err != nil || string(res.Output) != `{"n":42}` {
		t.Fatalf("got %s, %v", res.Output, err)
	}
}

// A module may name its own binding like the bundle's global, or write the
// global at its top level: the engine still runs the entry's default export.
func TestBundleGlobalIsNotTheModulesToRedirect(t *testing.T) {
	for name, text := range map[string]string{
		"own binding":     `const ` + bundleGlobal + ` = 5; export default function () { return { v: ` + bundleGlobal + ` } }`,
		"top-level write": `globalThis.` + bundleGlobal + ` = () => ({ v: "hijacked" }); export default function () { return { v: 5 } }`,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := call(t, compileModule(t, text), `{}`, 5*time.Second)
			if err != nil || string(res.Output) != `{"v":5}` {
				t.Fatalf("got %s, %v", res.Output, err)
			}
		})
	}
}
