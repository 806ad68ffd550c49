package registry

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/importrule"
)

// TestImportBoundary holds the library to what its doc.go promises: a pure
// library over files, building on kernel/pkg (a package loads as a run
// would load it) and the SDK's canonical JSON, codes and atomic writes,
// never on what runs packages and never on the network; the client and the
// server build on it, not the other way round.
func TestImportBoundary(t *testing.T) {
	const mod = "github.com/runxhq/runx/"
	importrule.Only(t, ".", "kernel/registry", mod+"kernel/pkg", mod+"kernel/pkg/semver", mod+"kernel/contract",
		mod+"sdk/canon", mod+"sdk/errcode", mod+"sdk/atomicfile", "github.com/goccy/go-yaml")
	for _, imp := range importrule.Of(t, ".", 8) {
		if imp.Std && (imp.Path == "net" || strings.HasPrefix(imp.Path, "net/") || imp.Path == "os/exec") {
			t.Errorf("%s imports %s: the registry library reads and writes files, the client and server do the network", imp.File, imp.Path)
		}
	}
}
