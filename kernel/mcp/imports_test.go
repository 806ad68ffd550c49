package mcp

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/importrule"
)

// TestImportBoundary holds the package to what doc.go promises: the server
// imports no plugin and nothing of cmd/. Its tests may link the first-party
// plugins, but only to serve them from the test binary as separate plugin
// processes, as runx serves them (harness_test.go).
func TestImportBoundary(t *testing.T) {
	for _, imp := range importrule.Of(t, ".", 1) {
		for _, bad := range []string{"github.com/runxhq/runx/plugins/", "github.com/runxhq/runx/cmd/"} {
			if strings.HasPrefix(imp.Path, bad) {
				t.Errorf("%s imports %s, which kernel/mcp must not", imp.File, imp.Path)
			}
		}
	}
}
