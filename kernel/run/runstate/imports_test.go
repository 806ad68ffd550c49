package runstate

import (
	"testing"

	"github.com/runxhq/runx/internal/importrule"
)

// TestImportBoundary holds doc.go's promise: the run's named parts are
// data every concern below the engine can take, so runstate imports only
// the standard library and the packages whose values it holds
// (kernel/authority, kernel/journal), never the engine, a concern beside
// it or the plugin host.
func TestImportBoundary(t *testing.T) {
	importrule.Only(t, ".", "kernel/run/runstate", "github.com/runxhq/runx/kernel/authority", "github.com/runxhq/runx/kernel/journal")
}
