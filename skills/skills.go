// Package skills carries the runx-maintained core skills into the binary, so
// `runx/<name>` resolves without a network and is never shadowed by a
// workspace copy. Each skill is a directory: SKILL.md, run.yaml, its modules,
// tests/ and fixtures/, and nothing else: skills_test.go holds each to the
// builder bar (method descriptions, effects stated and narrowed, only files
// used at execution time, tests present, no placeholder).
package skills

import (
	"embed"
	"io/fs"
)

//go:embed all:*
var files embed.FS

// Core returns the core skills, one directory each.
func Core() fs.FS {
	return filterFS{files}
}

// filterFS hides this package's own Go source from the skills tree.
type filterFS struct{ fs.FS }

func (f filterFS) Open(name string) (fs.File, error) {
	if name == "skills.go" || name == "skills_test.go" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.FS.Open(name)
}

func (f filterFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(f.FS, name)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		if name == "." && !e.IsDir() {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}
