// Command gen writes the key table in kernel/pkg/keyref to the file its
// argument names: go generate ./kernel/pkg/keyref writes docs/run-yaml.md
// (the path is in keyref.go's go:generate line, relative to that package).
package main

import (
	"fmt"
	"os"

	"github.com/runxhq/runx/kernel/pkg/keyref"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen <output file>")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], keyref.Markdown(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "keyref/gen:", err)
		os.Exit(1)
	}
}
