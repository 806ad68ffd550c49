package authority

import (
	"path"
	"strconv"
	"strings"
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
	return checkPath(reach, "reach "+reachName(reach), workspaceRoot, inputRoots, p)
}

// CheckPath is CheckPath under e's reach, naming the layer that set it.
func (e Effective) CheckPath(workspaceRoot string, inputRoots []string, p string) error {
	return checkPath(e.Reach, "reach "+reachName(e.Reach)+" ("+e.ReachFrom.String()+")", workspaceRoot, inputRoots, p)
}

func reachName(r Reach) string {
	if r == ReachInputs {
		return "inputs"
	}
	return "workspace"
}

func checkPath(reach Reach, rule, workspaceRoot string, inputRoots []string, p string) error {
	if err := checkClean(rule, workspaceRoot, p); err != nil {
		return err
	}
	if err := checkClean(rule, inputRoots...); err != nil {
		return err
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
			return refusal(CodeReachOutsideInputs, rule,
				"path "+strconv.Quote(p)+" is outside the workspace and every root the run's inputs name")
		}
		return refusal(CodeReachOutsideWorkspace, rule, "path "+strconv.Quote(p)+" is outside the workspace")
	}
	if rel == "" {
		return nil
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if dir, bad := protectedDir(seg); bad {
			return refusal(CodeReachProtectedDir, rule+"; protected directory "+dir,
				"path "+strconv.Quote(p)+" is inside "+strings.TrimSuffix(dir, "/")+", which no tool reaches")
		}
	}
	if pattern, secret := IsSecretPath(rel); secret {
		return refusal(CodeReachSecretRefused, rule+"; secret pattern "+pattern,
			"path "+strconv.Quote(p)+" is a secret no tool may touch")
	}
	return nil
}

// checkClean refuses any path that is not clean and absolute: the caller
// must clean and resolve paths first, and guessing would let "a/../b"
// mean something other than what was checked.
func checkClean(rule string, paths ...string) error {
	for _, p := range paths {
		if !cleanAbsolute(p) {
			return refusal(CodeReachPathInvalid, rule, "path "+strconv.Quote(p)+" is not a clean absolute path")
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
	prefix := root
	if !strings.HasSuffix(prefix, "/") { // "/" and "C:/" already end in one
		prefix += "/"
	}
	if rest, ok := strings.CutPrefix(p, prefix); ok {
		return rest, true
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
