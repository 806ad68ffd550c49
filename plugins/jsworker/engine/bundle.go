package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/runxhq/runx/sdk/errcode"
)

// bundleGlobal is the global the bundle assigns the entry's default export
// to, declared by the bundle's banner. The entry shim imports the default
// and assigns it, rather than re-exporting it under an IIFE global name:
// esbuild turns a bundle with exports into an exports object built at run
// time by helpers (__export, __copyProps, __toCommonJS) that walked the
// exports with for-in and for-of and read Object.defineProperty and its
// kin, a third of the work of running a small module's bundle, on every
// call. The global is the module's to see, as the exports object was.
const bundleGlobal = "__runxDefault"

// Namespaces of the in-memory esbuild plugin. esbuild never touches the
// filesystem for a path outside its "file" namespace.
const (
	entryNamespace  = "runx-entry"
	moduleNamespace = "runx"
)

// Program is a bundled and compiled module closure. It is immutable and may
// run concurrently; each Run gets its own runtime.
type Program struct {
	entry       string
	digest      string
	code        *goja.Program
	size        int  // bytes of bundled JavaScript: the cache's weight
	usesBuffers bool // see mentionsBuffers
}

// Digest is the digest of the program's closure: its entry and every file,
// by path and content.
func (p *Program) Digest() string { return p.digest }

// Entry is the package-relative path of the module whose default export runs.
func (p *Program) Entry() string { return p.entry }

// compile bundles src and compiles the bundle, uncached.
func compile(src Source, digest string) (p *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fault(errcode.ModuleCrashed, "bundling panicked: %v", r)
		}
	}()
	entry, refusal := src.validate()
	if refusal != nil {
		return nil, refusal
	}
	if refusal := checkNesting(src); refusal != nil {
		return nil, refusal
	}
	js, refusal := bundle(src, entry, nil)
	if refusal != nil {
		return nil, refusal
	}
	if strings.Contains(js, "__require") {
		// esbuild turns a free require into its __require shim, so typeof
		// require would be "function" inside the module. Every require call
		// was refused above; bundle again with require defined as
		// undefined, so no shim is visible. Only a closure that names
		// require pays for the second pass.
		if js, refusal = bundle(src, entry, map[string]string{"require": "undefined"}); refusal != nil {
			return nil, refusal
		}
	}
	code, err := goja.Compile("bundle:"+entry, js, true)
	if err != nil {
		return nil, refuse(errcode.ModuleSyntaxError, "the bundled module does not compile: %v", err)
	}
	return &Program{entry: entry, digest: digest, code: code, size: len(js), usesBuffers: mentionsBuffers(js)}, nil
}

// bundle runs esbuild over the closure in memory. The entry point is a
// two-line virtual module that imports the real entry's default and
// assigns it to bundleGlobal, so a missing default export is a bundling
// error located in that module rather than something discovered at run
// time. The shim is the last module the bundle evaluates, so the global
// holds the entry's default once every module's top level has run.
func bundle(src Source, entry string, define map[string]string) (string, *Error) {
	quotedEntry, _ := json.Marshal("./" + entry)
	shim := "import main from " + string(quotedEntry) + ";\n" + bundleGlobal + " = main;\n"
	var refusal *Error // the first import the plugin refused
	plugin := api.Plugin{
		Name: "runx-closure",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
				return resolve(src, entry, args, &refusal)
			})
			b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: entryNamespace}, func(api.OnLoadArgs) (api.OnLoadResult, error) {
				return api.OnLoadResult{Contents: &shim, Loader: api.LoaderJS}, nil
			})
			b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: moduleNamespace}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
				contents := string(src.Files[args.Path])
				return api.OnLoadResult{Contents: &contents, Loader: api.LoaderJS}, nil
			})
		},
	}
	result := api.Build(api.BuildOptions{
		EntryPoints: []string{"<runx entry>"},
		Bundle:      true,
		Write:       false,
		Format:      api.FormatIIFE,
		Platform:    api.PlatformNeutral,
		// goja implements ES2022 except async generators, for await and import(); esbuild
		// lowers the first two, and import() is refused before it matters.
		Target:    api.ES2022,
		Supported: map[string]bool{"async-generator": false, "for-await": false, "dynamic-import": false},
		// A non-literal import(x) or require(x) cannot be bundled; esbuild
		// only logs it, at debug level. Make it an error so it is refused
		// here, not discovered at run time.
		LogOverride: map[string]api.LogLevel{
			"unsupported-dynamic-import": api.LogLevelError,
			"unsupported-require-call":   api.LogLevelError,
		},
		LogLevel: api.LogLevelSilent,
		// The closure is ES modules, which are strict; an IIFE is a script,
		// so say so once at its top, and declare the global the shim
		// assigns (esbuild renames any module's own binding of that name,
		// as it does every top-level name that would shadow a free one).
		Banner:        map[string]string{"js": `"use strict";` + "\nvar " + bundleGlobal + ";"},
		Define:        define,
		Charset:       api.CharsetUTF8,
		LegalComments: api.LegalCommentsNone,
		Plugins:       []api.Plugin{plugin},
	})
	if refusal != nil {
		return "", refusal
	}
	if len(result.Errors) > 0 {
		return "", bundleError(result.Errors[0])
	}
	if len(result.OutputFiles) != 1 {
		return "", fault(errcode.ModuleCrashed, "esbuild produced %d outputs, want 1", len(result.OutputFiles))
	}
	return string(result.OutputFiles[0].Contents), nil
}

// resolve serves only the closure: the virtual entry, its one import of the
// real entry, and relative imports between closure files.
func resolve(src Source, entry string, args api.OnResolveArgs, refusal **Error) (api.OnResolveResult, error) {
	fail := func(e *Error) (api.OnResolveResult, error) {
		if *refusal == nil {
			*refusal = e
		}
		return api.OnResolveResult{Errors: []api.Message{{Text: e.Message, Detail: e}}}, nil
	}
	switch {
	case args.Kind == api.ResolveEntryPoint:
		return api.OnResolveResult{Path: "entry", Namespace: entryNamespace}, nil
	case args.Namespace == entryNamespace:
		return api.OnResolveResult{Path: entry, Namespace: moduleNamespace}, nil
	case args.Kind == api.ResolveJSDynamicImport || args.Kind == api.ResolveJSRequireCall || args.Kind == api.ResolveJSRequireResolve:
		return fail(refuse(errcode.ModuleImportDynamic, "%s loads %q with import() or require(); only static import declarations are allowed", args.Importer, args.Path))
	}
	target, e := resolveSpecifier(args.Importer, args.Path, src.Files)
	if e != nil {
		return fail(e)
	}
	return api.OnResolveResult{Path: target, Namespace: moduleNamespace}, nil
}

func bundleError(m api.Message) *Error {
	if e, ok := m.Detail.(*Error); ok {
		return e
	}
	where := ""
	if loc := m.Location; loc != nil {
		if strings.HasPrefix(loc.File, entryNamespace+":") {
			return refuse(errcode.ModuleNoDefaultExport, "the entry module has no default export; write export default function (input, { environment }) { ... }")
		}
		where = fmt.Sprintf("%s:%d:%d: ", strings.TrimPrefix(loc.File, moduleNamespace+":"), loc.Line, loc.Column)
	}
	switch m.ID {
	case "unsupported-dynamic-import", "unsupported-require-call":
		return refuse(errcode.ModuleImportDynamic, "%s%s; only static import declarations are allowed", where, m.Text)
	}
	return refuse(errcode.ModuleSyntaxError, "%s%s", where, m.Text)
}
