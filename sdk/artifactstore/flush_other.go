//go:build !linux

package artifactstore

import (
	"os"
	"path/filepath"
	"strings"
)

// flush makes each written file durable, then the directories that name
// them.
func flush(_ string, written []string) error {
	for _, p := range append(append([]string{}, written...), dirsOf(written)...) {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// dirsOf are the directories holding paths, each once.
func dirsOf(paths []string) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, p := range paths {
		d := filepath.Dir(p)
		if !seen[d] && !strings.HasSuffix(d, string(filepath.Separator)+"tmp") {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}
