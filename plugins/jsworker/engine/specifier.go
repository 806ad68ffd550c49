package engine

import (
	"path"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// nodeBuiltins are the Node.js core modules a bare specifier may name. They
// are refused with their own code so an author porting Node code learns why.
var nodeBuiltins = map[string]bool{
	"assert": true, "async_hooks": true, "buffer": true, "child_process": true, "cluster": true,
	"console": true, "constants": true, "crypto": true, "dgram": true, "diagnostics_channel": true,
	"dns": true, "domain": true, "events": true, "fs": true, "http": true, "http2": true, "https": true,
	"inspector": true, "module": true, "net": true, "os": true, "path": true, "perf_hooks": true,
	"process": true, "punycode": true, "querystring": true, "readline": true, "repl": true,
	"stream": true, "string_decoder": true, "sys": true, "timers": true, "tls": true,
	"trace_events": true, "tty": true, "url": true, "util": true, "v8": true, "vm": true,
	"wasi": true, "worker_threads": true, "zlib": true,
}

// resolveSpecifier maps an import specifier written in importer (a clean
// package-relative path) to the package-relative path it names, or refuses
// it. Only normalized relative .js/.mjs paths that stay inside the package
// and exist in files resolve; everything else is refused by kind.
func resolveSpecifier(importer, spec string, files map[string][]byte) (string, *Error) {
	switch {
	case spec == "":
		return "", refuse(errcode.ModuleImportMissing, "%s imports an empty specifier", importer)
	case strings.HasPrefix(spec, "node:"):
		return "", refuse(errcode.ModuleImportBuiltin, "%s imports %q: Node.js built-in modules are not available to deterministic modules", importer, spec)
	case hasScheme(spec):
		return "", refuse(errcode.ModuleImportURL, "%s imports %q: URL imports are not allowed; ship the file in the package and import it by relative path", importer, spec)
	case strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, `\`):
		return "", refuse(errcode.ModuleImportAbsolute, "%s imports %q: absolute paths are not allowed; import package files by relative path", importer, spec)
	case !isRelative(spec):
		if nodeBuiltins[strings.SplitN(spec, "/", 2)[0]] {
			return "", refuse(errcode.ModuleImportBuiltin, "%s imports %q: Node.js built-in modules are not available to deterministic modules", importer, spec)
		}
		return "", refuse(errcode.ModuleImportBare, "%s imports %q: bare package specifiers are not allowed; vendor the code into the package and import it by relative path", importer, spec)
	}
	target := path.Join(path.Dir(importer), spec)
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", refuse(errcode.ModuleImportEscape, "%s imports %q, which resolves outside the package", importer, spec)
	}
	if !hasModuleExtension(target) {
		return "", refuse(errcode.ModuleImportExtension, "%s imports %q: only .js and .mjs files can be imported, named with their extension", importer, spec)
	}
	if _, ok := files[target]; !ok {
		return "", refuse(errcode.ModuleImportMissing, "%s imports %q, but %s is not in the module closure", importer, spec, target)
	}
	return target, nil
}

func isRelative(spec string) bool {
	return spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../")
}

func hasModuleExtension(p string) bool {
	return strings.HasSuffix(p, ".mjs") || strings.HasSuffix(p, ".js")
}

// hasScheme reports whether spec starts with an RFC 3986 scheme ("https:",
// "data:", "file:"). A Windows drive letter ("C:") counts, and is refused as
// a URL, which is the right answer for a package-relative import too.
func hasScheme(spec string) bool {
	i := strings.IndexByte(spec, ':')
	if i < 1 {
		return false
	}
	for j, c := range spec[:i] {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}
