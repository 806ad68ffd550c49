package receipt

import (
	"testing"

	"github.com/runxhq/runx/internal/importrule"
)

// TestImportBoundary holds the package to what doc.go promises: the standard
// library, jcs, sdk/canon, sdk/atomicfile, the seal vocabulary
// (kernel/contract/seal, a leaf importing only the error-code registry) and
// the error-code registry (sdk/errcode, declarations only). The run engine,
// the journal, the plugin host and plugins seal through this package, never
// the reverse.
func TestImportBoundary(t *testing.T) {
	importrule.Only(t, ".", "kernel/receipt", "github.com/gowebpki/jcs", "github.com/runxhq/runx/sdk/canon",
		"github.com/runxhq/runx/sdk/atomicfile", "github.com/runxhq/runx/kernel/contract/seal", "github.com/runxhq/runx/sdk/errcode")
}
