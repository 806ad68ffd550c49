package authority

import (
	"path"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// CheckPath decides whether a tool may touch p under reach.
//
// workspaceRoot, every input root and p must be absolute, slash-separated
// and already cleaned (path.Clean), and must already have had their
// symlinks resolved: this package does no I/O, so a symlink that escapes the
// workspace can only be caught by a caller that resolved it before asking.
// Callers on Windows pass filepath.ToSlash forms ("C:/work/repo").
//
// Under reach workspace, p must lie within the workspace. Under reach
// inputs, p may lie within the workspace or within a root the run's inputs
// name. Under either, a path inside .git or .runx is refused, and so is a
// secret (IsSecretPath), matched on p relative to the root that holds it:
// reaching further does not mean reading credentials. An unset reach is
// treated as workspace, so a missing decision fails closed.
func CheckPath(reach Reach, workspaceRoot string, inputRoots []string, p string) error {
	return checkPath(reach, nil, workspaceRoot, inputRoots, p)
}

// CheckPath is CheckPath under e's reach, naming the layer that set it.
func (e Effective) CheckPath(workspaceRoot string, inputRoots []string, p string) error {
	return checkPath(e.Reach, &e.ReachFrom, workspaceRoot, inputRoots, p)
}

// reachRule names the reach that refused and, when known, its layer. It is
// built only on refusal: a listing checks every entry, and an allowed path
// should cost no allocation.
func reachRule(r Reach, from *Source) string {
	rule := "reach workspace"
	if r == ReachInputs {
		rule = "reach inputs"
	}
	if from != nil {
		rule += " (" + from.String() + ")"
	}
	return rule
}

func checkPath(reach Reach, from *Source, workspaceRoot string, inputRoots []string, p string) error {
	if !cleanAbsolute(workspaceRoot) || !cleanAbsolute(p) {
		return notClean(reach, from, workspaceRoot, p)
	}
	for _, root := range inputRoots {
		if !cleanAbsolute(root) {
			return notClean(reach, from, root)
		}
	}
	rel, ok := within(workspaceRoot, p)
	if !ok && reach == ReachInputs {
		for _, root := range inputRoots {
			if rel, ok = within(root, p); ok {
				break
			}
		}
	}
	if !ok {
		if reach == ReachInputs {
			return refusal(errcode.ReachOutsideInputs, reachRule(reach, from),
				"path "+strconv.Quote(p)+" is outside the workspace and every root the run's inputs name")
		}
		return refusal(errcode.ReachOutsideWorkspace, reachRule(reach, from), "path "+strconv.Quote(p)+" is outside the workspace")
	}
	if rel == "" {
		return nil
	}
	pattern, secret := IsSecretPath(rel)
	if !secret {
		return nil
	}
	if pattern == SecretGitDir || pattern == SecretRunxDir {
		// Named apart from secrets: git's and runx's own state is out of
		// reach as a place, whatever the file in it holds.
		return refusal(errcode.ReachProtectedDir, reachRule(reach, from)+"; protected directory "+pattern,
			"path "+strconv.Quote(p)+" is inside "+strings.TrimSuffix(pattern, "/")+", which no tool reaches")
	}
	return refusal(errcode.ReachSecretRefused, reachRule(reach, from)+"; secret pattern "+pattern,
		"path "+strconv.Quote(p)+" is a secret no tool may touch")
}

// notClean refuses the first path that is not clean and absolute: the
// caller must clean and resolve paths first, and guessing would let
// "a/../b" mean something other than what was checked.
func notClean(reach Reach, from *Source, paths ...string) error {
	for _, p := range paths {
		if !cleanAbsolute(p) {
			return refusal(errcode.ReachPathInvalid, reachRule(reach, from), "path "+strconv.Quote(p)+" is not a clean absolute path")
		}
	}
	return nil
}

// within returns p relative to root when p is root or below it, by whole
// components, so /work/repo2 is not within /work/repo.
func within(root, p string) (string, bool) {
	if p == root {
		return "", true
	}
	if !strings.HasPrefix(p, root) {
		return "", false
	}
	if strings.HasSuffix(root, "/") { // "/" and "C:/" already end in one
		return p[len(root):], true
	}
	if p[len(root)] == '/' {
		return p[len(root)+1:], true
	}
	return "", false
}

// cleanAbsolute reports whether p is absolute ("/..." or a drive "X:/...")
// and already in path.Clean form.
func cleanAbsolute(p string) bool {
	if strings.IndexByte(p, 0) >= 0 || strings.IndexByte(p, '\\') >= 0 {
		return false
	}
	if strings.HasPrefix(p, "/") {
		return path.Clean(p) == p
	}
	if len(p) >= 3 && p[1] == ':' && p[2] == '/' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') {
		rest := p[2:]
		return path.Clean(rest) == rest
	}
	return false
}
