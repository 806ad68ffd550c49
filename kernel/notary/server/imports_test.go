package server

import (
	"testing"

	"github.com/runxhq/runx/internal/importrule"
)

// TestImportBoundary holds the notary to what its doc.go files promise:
// the format builds on the sdk and x/mod's log alone; the server on the
// format, the receipt check and its store, never on what runs packages;
// the store knows nothing of HTTP.
func TestImportBoundary(t *testing.T) {
	const mod = "github.com/runxhq/runx/"
	log := []string{"golang.org/x/mod/sumdb/tlog", "golang.org/x/mod/sumdb/note"}
	common := []string{mod + "kernel/contract", mod + "sdk/errcode", mod + "sdk/canon"}
	importrule.Only(t, "..", "kernel/notary", append(append([]string{mod + "sdk/atomicfile", "github.com/gofrs/flock"}, log...), common...)...)
	importrule.Only(t, ".", "kernel/notary/server", append(append([]string{mod + "internal/seedfile", mod + "kernel/notary", mod + "kernel/notary/server/store", mod + "kernel/receipt", "golang.org/x/time/rate"}, log...), common...)...)
	importrule.Only(t, "store", "kernel/notary/server/store", append([]string{mod + "internal/seedfile", mod + "internal/serverdb", "github.com/jackc/pgx/v5", "github.com/jackc/pgx/v5/pgxpool", "modernc.org/sqlite"}, append(log, common...)...)...)
	importrule.Only(t, "../client", "kernel/notary/client", append([]string{mod + "internal/apierror", mod + "kernel/notary"}, append(log, common...)...)...)
	for _, imp := range importrule.Of(t, "store", 1) {
		if imp.Path == "net/http" {
			t.Errorf("%s imports net/http: the store knows nothing of HTTP", imp.File)
		}
	}
}
