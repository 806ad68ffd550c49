package fs

import (
	"context"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Kinds of entry a listing reports.
const (
	KindFile    = "file"
	KindDir     = "dir"
	KindSymlink = "symlink"
	KindOther   = "other"
)

// walkEntry is one visible entry met by a walk.
type walkEntry struct {
	real    string // absolute path
	display string // as outputs name it
	rel     string // slash path relative to the walk's root, for include globs
	kind    string
	dirent  iofs.DirEntry
	// worktree marks a nested Git worktree: listed, never entered.
	worktree bool
}

// walker visits what lies beneath a directory in sorted depth-first order,
// showing only what a person would see in `git status`: it hides .git and
// .runx, anything an ignore file excludes, and every secret, and it lists
// a nested worktree without entering it. It never follows a symlink, as Git
// does not, so no walk can leave the tree it started in.
type walker struct {
	ctx       context.Context
	scope     *Scope // runx's own places are left out of every walk
	base      string // real path ignore files are relative to
	recursive bool
	visit     func(*walkEntry) bool
}

// walk visits t's descendants. visit returns false to stop the walk early.
func walk(ctx context.Context, scope *Scope, t *Target, recursive bool, visit func(*walkEntry) bool) error {
	base := ignoreBase(t)
	relRoot := relFromBase(base, t.Real)
	var stack ignoreStack
	stack = stack.with(repoExclude(base))
	if relRoot != "" {
		// The ignore files above the named directory, down from the base,
		// apply to it as they would to a walk that started at the base.
		// But a request that names an ignored directory (or one inside it)
		// asked for it: it is shown whole, less what its own and deeper
		// ignore files exclude, whether the rule that ignored it was
		// "build/" or "build/**".
		stack = stack.with(loadIgnoreFile(base, ""))
		parts := strings.Split(relRoot, "/")
		dir, rel := base, ""
		for i, part := range parts {
			dir, rel = filepath.Join(dir, part), joinRel(rel, part)
			if stack.ignored(rel, true) {
				stack = nil
			}
			if i < len(parts)-1 {
				stack = stack.with(loadIgnoreFile(dir, rel))
			}
		}
	}
	w := &walker{ctx: ctx, scope: scope, base: base, recursive: recursive, visit: visit}
	_, err := w.dir(t.Real, relRoot, t.Display, "", stack, true)
	return err
}

// ignoreBase is the top of the worktree holding t (the nearest directory
// at or above t, within its reach root, that holds .git), or the reach
// root when t is in no worktree. A nested worktree's files answer to its
// own ignore files, not to those of the repository around it.
func ignoreBase(t *Target) string {
	dir := t.Real
	if t.Info != nil && !t.Info.IsDir() {
		dir = filepath.Dir(dir)
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if dir == t.Root || !within(t.Root, dir) {
			return t.Root
		}
		dir = filepath.Dir(dir)
	}
}

func (w *walker) dir(real, relBase, display, relRoot string, stack ignoreStack, isRoot bool) (bool, error) {
	if err := w.ctx.Err(); err != nil {
		return false, err
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		if isRoot {
			return false, err
		}
		// An unreadable subdirectory hides its own contents and nothing else.
		return true, nil
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			stack = stack.with(loadIgnoreFile(real, relBase))
			break
		}
	}
	for _, e := range entries {
		name := e.Name()
		if isProtectedName(name) || w.scope.Protected(filepath.Join(real, name)) {
			// .git, .runx, and runx's own places wherever they lie: a
			// listing neither shows nor descends into them.
			continue
		}
		childRel := joinRel(relBase, name)
		typ := e.Type()
		if stack.ignored(childRel, typ.IsDir()) {
			continue
		}
		entry := &walkEntry{
			real:    filepath.Join(real, name),
			display: joinDisplay(display, name),
			rel:     joinRel(relRoot, name),
			kind:    kindOf(typ),
			dirent:  e,
		}
		switch entry.kind {
		case KindFile, KindSymlink:
			if SecretName(name) != "" {
				continue
			}
			if entry.kind == KindSymlink {
				if target, err := realPath(entry.real); err != nil || w.scope.Protected(target) {
					continue // a link into runx's own places is not shown either
				}
			}
			if entry.kind == KindFile && MayHoldPrivateKey(name) {
				if holds, err := fileHoldsPrivateKey(entry.real); err != nil || holds {
					continue
				}
			}
		case KindDir:
			_, err := os.Lstat(filepath.Join(entry.real, ".git"))
			entry.worktree = err == nil
		}
		if !w.visit(entry) {
			return false, nil
		}
		if entry.kind == KindDir && w.recursive && !entry.worktree {
			cont, err := w.dir(entry.real, childRel, entry.display, entry.rel, stack, false)
			if err != nil || !cont {
				return cont, err
			}
		}
	}
	return true, nil
}

func kindOf(typ iofs.FileMode) string {
	switch {
	case typ.IsRegular():
		return KindFile
	case typ.IsDir():
		return KindDir
	case typ&iofs.ModeSymlink != 0:
		return KindSymlink
	}
	return KindOther
}

func relFromBase(base, p string) string {
	rel := slashRel(base, p)
	if rel == "." {
		return ""
	}
	return rel
}

func joinRel(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "/" + name
}

func joinDisplay(parent, name string) string {
	switch {
	case parent == "." || parent == "":
		return name
	case filepath.IsAbs(parent):
		return filepath.Join(parent, name)
	}
	return parent + "/" + name
}
