package engine

import (
	"sort"

	"github.com/runxhq/runx/sdk/errcode"
)

// helpers are the Runx.* functions the engine implements. A package declares
// the newer ones it needs (tool: {module: x.mjs, requires: [...]}) so that
// admission can refuse it before any effect on a runtime that lacks one.
// parseUrl predates the declaration and is always present.
var helpers = map[string]bool{"parseUrl": true}

// HelperNames lists the Runx helpers this engine provides, sorted.
func HelperNames() []string {
	names := make([]string, 0, len(helpers))
	for name := range helpers {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// CheckRequires refuses a module that declares a helper this engine lacks,
// with module_requires_unsupported, naming the first one.
func CheckRequires(requires []string) error {
	for _, name := range requires {
		if !helpers[name] {
			return refuse(errcode.ModuleRequiresUnsupported, "the module requires Runx.%s, which this runtime does not provide (it provides %v)", name, HelperNames())
		}
	}
	return nil
}
