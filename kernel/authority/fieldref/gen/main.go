// Command gen writes the field table in kernel/authority/fieldref to the
// file its argument names: go generate ./kernel/authority/fieldref writes
// docs/authority.md.
package main

import (
	"fmt"
	"os"

	"github.com/runxhq/runx/kernel/authority/fieldref"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen <output file>")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], fieldref.Markdown(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fieldref/gen:", err)
		os.Exit(1)
	}
}
