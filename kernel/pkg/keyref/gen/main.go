// Command gen writes docs/run-yaml.md from the key table in kernel/pkg/keyref.
// Run it with go generate ./kernel/pkg/keyref (or go run ./kernel/pkg/keyref/gen)
// from anywhere in the module.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/pkg/keyref"
)

func main() {
	root, err := moduleRoot()
	if err == nil {
		err = os.WriteFile(filepath.Join(root, "docs", "run-yaml.md"), keyref.Markdown(), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "keyref/gen:", err)
		os.Exit(1)
	}
}

// moduleRoot is the nearest directory at or above the working directory
// holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above the working directory")
		}
		dir = parent
	}
}
