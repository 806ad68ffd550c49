package client

import (
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/internal/importrule"
)

const module = "github.com/runxhq/runx/"

// TestImportBoundary holds the client to what its doc.go promises: it
// builds on kernel/registry (the record, verification, install) and talks
// HTTP, and never on what runs packages; and no part of the engine
// (kernel/run and below) imports it, so a run reaches a registry only
// through the fetcher cmd/runx gives the kernel.
func TestImportBoundary(t *testing.T) {
	importrule.Only(t, ".", "kernel/registry/client", module+"internal/apierror", module+"kernel/registry", module+"kernel/pkg/semver", module+"kernel/contract", module+"sdk/errcode")
	for _, imp := range importrule.Below(t, filepath.Join("..", "..", "run"), 50) {
		if imp.Path == module+"kernel/registry/client" {
			t.Errorf("%s imports the registry client: a run reaches a registry only through the fetcher it is given", imp.File)
		}
	}
}
