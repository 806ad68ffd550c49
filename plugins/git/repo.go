package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// repo is a worktree inside the reach, and the part of it a request names.
type repo struct {
	top     string // real path of the worktree's top
	display string // as outputs name it
	// pathspec is the named path relative to top, "" for the whole tree.
	pathspec string
	scope    *pathpolicy.Scope
}

// locate finds the worktree holding path (the workspace root when empty).
// The path passes the fs containment rules first, so a secret, a symlink
// escape or a place outside the reach is refused before git runs; then the
// worktree's own top must lie inside the reach too, or a path in a
// workspace nested in a larger repository would show that repository's
// history from outside the workspace.
func locate(ctx context.Context, scope *pathpolicy.Scope, path string) (*repo, *plugin.Result) {
	t, res := scope.Resolve(path)
	if res != nil {
		return nil, res
	}
	dir := t.Real
	for {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			break
		}
		dir = filepath.Dir(dir)
	}
	out, err := runGit(ctx, dir, 64<<10, "rev-parse", "--show-toplevel")
	if err != nil {
		var exit *errGitExit
		if errors.As(err, &exit) {
			return nil, plugin.Refused(errcode.GitNotARepository, fmt.Sprintf("%s is not inside a git worktree", displayOr(path)))
		}
		return nil, gitFailure(ctx, "finding the repository", err)
	}
	top, err := filepath.EvalSymlinks(strings.TrimRight(string(out.stdout), "\n"))
	if err != nil {
		return nil, plugin.Failed(errcode.GitFailed, fmt.Sprintf("cannot resolve the repository top: %v", err))
	}
	if !scope.Contains(top) {
		return nil, plugin.Refused(errcode.ReachOutsideWorkspace,
			fmt.Sprintf("%s belongs to the repository at %s, whose top lies outside the reach", displayOr(path), top))
	}
	r := &repo{top: top, display: scope.DisplayPath(top), scope: scope}
	if path != "" {
		if rel, err := filepath.Rel(top, t.Real); err == nil && rel != "." {
			r.pathspec = filepath.ToSlash(rel)
		}
	}
	return r, nil
}

func displayOr(path string) string {
	if path == "" {
		return "the workspace root"
	}
	return path
}

// git runs a git subcommand in the worktree.
func (r *repo) git(ctx context.Context, limit int, args ...string) (*output, error) {
	return runGit(ctx, r.top, limit, args...)
}

// userPathspec limits a command to the named path, matched literally so a
// file called "*.go" means that file.
func (r *repo) userPathspec() []string {
	if r.pathspec == "" {
		return nil
	}
	return []string{":(literal)" + r.pathspec}
}

// plausibleRev admits what a person writes for one revision (names,
// hashes, HEAD~2, v1.0^{commit}, @{upstream}) and refuses what git could
// read as an option, or what no ref name may hold (whitespace, control
// characters).
func plausibleRev(rev string) bool {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.Contains(rev, "..") {
		return false
	}
	for _, c := range rev {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// resolveRev turns one revision into its full commit hash, refusing one
// that looks like an option or names no commit. Later commands get the hash,
// never the text the request carried.
func (r *repo) resolveRev(ctx context.Context, rev string) (string, *plugin.Result) {
	if !plausibleRev(rev) {
		return "", plugin.Refused(errcode.GitRevInvalid, fmt.Sprintf("%q is not a revision this tool accepts", rev))
	}
	out, err := r.git(ctx, 4096, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		var exit *errGitExit
		if errors.As(err, &exit) {
			return "", plugin.Refused(errcode.GitRevNotFound, fmt.Sprintf("%s names no commit in %s", rev, r.display))
		}
		return "", gitFailure(ctx, "resolving "+rev, err)
	}
	return strings.TrimSpace(string(out.stdout)), nil
}

// resolveRange resolves "A", "A..B" or "A...B" for git log.
func (r *repo) resolveRange(ctx context.Context, rev string) (string, *plugin.Result) {
	for _, sep := range []string{"...", ".."} {
		if from, to, ok := strings.Cut(rev, sep); ok {
			a, res := r.resolveRev(ctx, orHEAD(from))
			if res != nil {
				return "", res
			}
			b, res := r.resolveRev(ctx, orHEAD(to))
			if res != nil {
				return "", res
			}
			return a + sep + b, nil
		}
	}
	return r.resolveRev(ctx, orHEAD(rev))
}

func orHEAD(rev string) string {
	if rev == "" {
		return "HEAD"
	}
	return rev
}
