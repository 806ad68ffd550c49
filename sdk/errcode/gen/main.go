// Command gen writes docs/errors.md from the registry in sdk/errcode. Run it
// with go generate ./sdk/errcode (or go run ./sdk/errcode/gen) from anywhere
// in the module.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/sdk/errcode/internal/registry"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "errcode/gen:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	areas, err := registry.Load(filepath.Join(root, "sdk", "errcode"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "docs", "errors.md"), registry.Markdown(areas), 0o644)
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
