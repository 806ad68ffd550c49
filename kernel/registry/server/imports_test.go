package server

import (
	"testing"

	"github.com/runxhq/runx/internal/importrule"
)

// TestImportBoundary holds the server and its store to what their doc.go
// promise: the server builds on kernel/registry (the package rules, the
// record, signing) and its own store, and never on what runs packages (the
// engine, the plugin host, the journal, a plugin); the store knows nothing
// of HTTP.
func TestImportBoundary(t *testing.T) {
	const mod = "github.com/runxhq/runx/"
	common := []string{mod + "kernel/registry", mod + "kernel/pkg/semver", mod + "kernel/contract", mod + "sdk/errcode"}
	importrule.Only(t, ".", "kernel/registry/server", append([]string{mod + "internal/seedfile", mod + "kernel/registry/server/store"}, common...)...)
	importrule.Only(t, "store", "kernel/registry/server/store", append([]string{mod + "internal/seedfile", mod + "internal/serverdb", "github.com/jackc/pgx/v5", "github.com/jackc/pgx/v5/pgxpool", "modernc.org/sqlite"}, common...)...)
	for _, imp := range importrule.Of(t, "store", 1) {
		if imp.Path == "net/http" {
			t.Errorf("%s imports net/http: the store knows nothing of HTTP", imp.File)
		}
	}
}
