package run

import (
	"os"
	"path/filepath"
)

// FindWorkspace is the workspace a directory belongs to: the nearest
// directory at or above dir that holds a .runx project (other than the runx
// home, which is never a project) or a .git, else dir itself. So a bare
// skill name, a preset and the project state resolve the same from any
// subdirectory, and no stray .runx is made inside one; a repository checked
// out inside another is a workspace of its own.
func FindWorkspace(dir, homeDir string) string {
	dir = filepath.Clean(dir)
	home := filepath.Clean(homeDir)
	for cur := dir; ; {
		project := filepath.Join(cur, ".runx")
		if info, err := os.Stat(project); err == nil && info.IsDir() && project != home {
			return cur
		}
		if _, err := os.Stat(filepath.Join(cur, ".git")); err == nil {
			return cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return dir
		}
		cur = parent
	}
}
