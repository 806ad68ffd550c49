package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
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
// side's content is the secret's. With inspect set, every file is judged
// by its content on either side too (a private key or cloud credentials
// under any name; a certificate is public, a private key is not); a log,
// which shows no content, judges names only.
// worktree says the new side of a zero-id entry is the file on disk.
func (r *repo) sortChanges(ctx context.Context, entries []rawEntry, inspect, worktree bool) (*sorted, *plugin.Result) {
	s := &sorted{files: []FileChange{}}
	var blobs map[string]blobVerdict
	if inspect {
		var res *plugin.Result
		if blobs, res = r.judgeBlobs(ctx, entries); res != nil {
			return nil, res
		}
	}
	for _, e := range entries {
		pattern, secretPath := r.secretOf(e, blobs, inspect, worktree)
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
		return nil, plugin.Refused(errcode.GitTooManySecrets, fmt.Sprintf("this change touches %d secret paths; name a narrower path", len(s.excludes)))
	}
	return s, nil
}

// secretOf names the pattern that makes e a secret and which of its paths
// matched, or "". With inspect, either side's content is judged too
// (blobs holds the verdicts on the entries' blobs): a private key or cloud
// credentials under any name, a PEM-named file holding any key block.
func (r *repo) secretOf(e rawEntry, blobs map[string]blobVerdict, inspect, worktree bool) (pattern, path string) {
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
		if side.path == "" {
			continue
		}
		var v blobVerdict
		switch {
		case !zeroID(side.id):
			v = blobs[side.id]
		case worktree && side.id == e.dstID:
			v = judge(r.worktreeHead(side.path))
		}
		if v.pemKey && pathpolicy.MayHoldPrivateKey(side.path) {
			return pathpolicy.PatternPrivateKeyPEM, side.path
		}
		if v.pattern != "" {
			return v.pattern, side.path
		}
	}
	return "", ""
}

// blobVerdict is what a blob's head holds: any PEM private key block (a
// secret in a PEM-named file), and the secret pattern its content matches
// under any name.
type blobVerdict struct {
	pemKey  bool
	pattern string
}

func judge(head []byte) blobVerdict {
	return blobVerdict{pemKey: pathpolicy.HoldsPrivateKey(head), pattern: pathpolicy.SecretContent(head)}
}

// judgeBlobs judges the head of every blob the entries name, through one
// git cat-file --batch: a patch shows content, so a file is judged by what
// it holds whatever it is called. Each blob's first keyScanBytes are judged
// and the rest is read past, so memory stays one head at a time.
func (r *repo) judgeBlobs(ctx context.Context, entries []rawEntry) (map[string]blobVerdict, *plugin.Result) {
	var ids []string
	seen := map[string]bool{}
	for _, e := range entries {
		for _, id := range []string{e.srcID, e.dstID} {
			if !zeroID(id) && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	out := map[string]blobVerdict{}
	if len(ids) == 0 {
		return out, nil
	}
	bin, err := gitBinary()
	if err != nil {
		return nil, gitFailure(ctx, "reading blobs", err)
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"-C", r.top}, globalArgs...), "cat-file", "--batch")...)
	cmd.Env, cmd.Dir, cmd.WaitDelay = gitEnv(), r.top, gitWaitDelay
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, gitFailure(ctx, "reading blobs", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, gitFailure(ctx, "reading blobs", err)
	}
	br := bufio.NewReader(pipe)
	readErr := func() error {
		for range ids {
			header, err := br.ReadString('\n')
			if err != nil {
				return err
			}
			fields := strings.Fields(header)
			if len(fields) != 3 {
				continue // "<id> missing": a blob that cannot be read shows nothing in a patch either
			}
			size, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				return err
			}
			head := make([]byte, min(size, keyScanBytes))
			if _, err := io.ReadFull(br, head); err != nil {
				return err
			}
			if _, err := io.CopyN(io.Discard, br, size-int64(len(head))+1); err != nil { // the rest, and its newline
				return err
			}
			out[fields[0]] = judge(head)
		}
		return nil
	}()
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	if err := cmd.Wait(); readErr == nil && err != nil {
		readErr = err
	}
	if readErr != nil {
		return nil, gitFailure(ctx, "reading blobs", readErr)
	}
	return out, nil
}

// worktreeHead reads the start of a file in the working tree, not through
// a symlink: git diffs a link as its target's name, never its content.
func (r *repo) worktreeHead(rel string) []byte {
	f, err := openNoFollow(filepath.Join(r.top, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, keyScanBytes))
	return head
}
