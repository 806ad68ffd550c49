package git

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// FileChange is one changed file of a commit or diff.
type FileChange struct {
	// Status is git's letter: A added, M modified, D deleted, R renamed,
	// C copied, T type changed, U unmerged.
	Status     string `json:"status"`
	Path       string `json:"path"`
	OldPath    string `json:"old_path,omitempty"`
	Similarity int    `json:"similarity,omitempty"`
}

// OmittedSecret names a file left out of a listing or patch and the secret
// pattern that kept it out.
type OmittedSecret struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
}

// keyScanBytes bounds how much of a PEM-like blob is read to look for a key.
const keyScanBytes = 1 << 20

// maxExcludes bounds the exclude pathspecs one command carries, well
// below the kernel's argument-length limit. A variable so a test can reach
// it cheaply.
var maxExcludes = 5_000

// sorted is a change list split into what may be shown and what may not,
// with the pathspecs that keep the latter out of a patch.
type sorted struct {
	files    []FileChange
	omitted  []OmittedSecret
	excludes []string
}

// sortChanges applies the fs secret rules to every path a change names.
// A rename or copy touching a secret is left out on both sides: the other
// side's content is the secret's. With inspect set, PEM-like files are
// judged by their content on either side (a certificate is public, a
// private key is not); a log, which shows no content, judges names only.
// worktree says the new side of a zero-id entry is the file on disk.
func (r *repo) sortChanges(ctx context.Context, entries []rawEntry, inspect, worktree bool) (*sorted, *plugin.Result) {
	s := &sorted{files: []FileChange{}}
	for _, e := range entries {
		pattern, secretPath := r.secretOf(ctx, e, inspect, worktree)
		if pattern == "" {
			s.files = append(s.files, FileChange{Status: string(e.status), Path: e.path, OldPath: e.oldPath, Similarity: e.score})
			continue
		}
		for _, p := range []string{e.oldPath, e.path} {
			if p == "" {
				continue
			}
			why := pattern
			if p != secretPath {
				why = fmt.Sprintf("paired by a rename or copy with the secret %s (%s)", secretPath, pattern)
			}
			s.omitted = append(s.omitted, OmittedSecret{Path: p, Pattern: why})
			s.excludes = append(s.excludes, ":(exclude,literal)"+p)
		}
	}
	if len(s.excludes) > maxExcludes {
		return nil, plugin.Refused(CodeTooManySecrets, fmt.Sprintf("this change touches %d secret paths; name a narrower path", len(s.excludes)))
	}
	return s, nil
}

// secretOf names the pattern that makes e a secret and which of its paths
// matched, or "".
func (r *repo) secretOf(ctx context.Context, e rawEntry, inspect, worktree bool) (pattern, path string) {
	for _, p := range []string{e.path, e.oldPath} {
		if p == "" {
			continue
		}
		if pat := pathpolicy.SecretPath(p); pat != "" {
			return pat, p
		}
		if r.scope.Protected(filepath.Join(r.top, filepath.FromSlash(p))) {
			return pathpolicy.PatternRunxState, p
		}
	}
	if !inspect {
		return "", ""
	}
	for _, side := range []struct{ path, id string }{{e.path, e.dstID}, {e.oldPath, e.srcID}, {e.path, e.srcID}} {
		if side.path == "" || !pathpolicy.MayHoldPrivateKey(side.path) {
			continue
		}
		var content []byte
		switch {
		case !zeroID(side.id):
			content = r.blobHead(ctx, side.id)
		case worktree && side.id == e.dstID:
			content = r.worktreeHead(side.path)
		}
		if pathpolicy.HoldsPrivateKey(content) {
			return pathpolicy.PatternPrivateKeyPEM, side.path
		}
	}
	return "", ""
}

// blobHead reads the start of a blob. A blob that cannot be read shows
// nothing in a patch either, so it is judged as holding no key.
func (r *repo) blobHead(ctx context.Context, id string) []byte {
	out, err := r.git(ctx, keyScanBytes, "cat-file", "blob", id)
	if err != nil {
		return nil
	}
	return out.stdout
}

// worktreeHead reads the start of a file in the working tree, not through
// a symlink: git diffs a link as its target's name, never its content.
func (r *repo) worktreeHead(rel string) []byte {
	f, err := os.OpenFile(filepath.Join(r.top, filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, keyScanBytes))
	return head
}
