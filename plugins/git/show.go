package git

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// Patch and file bounds shared by git.show and git.diff. A patch past its
// bound is cut at a line and marked truncated; a file past its bound is
// refused, as fs.read refuses one, because half a file read as whole
// misleads.
const (
	PatchDefaultMaxBytes = 1 << 20
	PatchMaxBytes        = 4 << 20
)

// rawMaxBytes bounds a change listing. Secrets are screened out of a patch
// by the listing, so a listing cut short means no patch. A variable so a
// test can reach the bound without writing 16 MiB of paths.
var rawMaxBytes = 16 << 20

// ShowRequest is git.show's input. Without a path, or with a path naming a
// directory at that revision, it shows the commit and its patch (limited
// to the path); with a path naming a file, that file's content at Rev.
type ShowRequest struct {
	Rev      string `json:"rev"`
	Path     string `json:"path,omitempty"`
	MaxBytes int    `json:"max_bytes,omitempty"`
}

// FileAtRevision is one file's content at a revision.
type FileAtRevision struct {
	Path          string `json:"path"`
	Blob          string `json:"blob"`
	Content       string `json:"content"`
	Size          int64  `json:"size"`
	ContentDigest string `json:"content_digest"`
}

// ShowResponse is git.show's output: Commit and Patch, or File.
type ShowResponse struct {
	Repository     string          `json:"repository"`
	Rev            string          `json:"rev"`
	Hash           string          `json:"hash"`
	Commit         *Commit         `json:"commit,omitempty"`
	Patch          *string         `json:"patch,omitempty"`
	File           *FileAtRevision `json:"file,omitempty"`
	Truncated      bool            `json:"truncated"`
	OmittedSecrets []OmittedSecret `json:"omitted_secrets,omitempty"`
}

func patchLimit(maxBytes int) (int, *plugin.Result) {
	if maxBytes == 0 {
		return PatchDefaultMaxBytes, nil
	}
	if maxBytes < 0 || maxBytes > PatchMaxBytes {
		return 0, plugin.Refused(errcode.GitRequestInvalid, fmt.Sprintf("max_bytes must be between 1 and %d", PatchMaxBytes))
	}
	return maxBytes, nil
}

func gitShow(ctx context.Context, r *repo, req *ShowRequest) (*ShowResponse, *plugin.Result) {
	limit, res := patchLimit(req.MaxBytes)
	if res != nil {
		return nil, res
	}
	if req.Rev == "" {
		return nil, plugin.Refused(errcode.GitRequestInvalid, "git.show needs a rev")
	}
	hash, res := r.resolveRev(ctx, req.Rev)
	if res != nil {
		return nil, res
	}
	resp := &ShowResponse{Repository: r.display, Rev: req.Rev, Hash: hash}
	if r.pathspec != "" {
		kind, err := r.git(ctx, 64, "cat-file", "-t", hash+":"+r.pathspec)
		if err != nil {
			return nil, plugin.Refused(errcode.GitPathNotFound, fmt.Sprintf("%s does not exist at %s", req.Path, req.Rev))
		}
		if strings.TrimSpace(string(kind.stdout)) == "blob" {
			file, res := r.fileAt(ctx, hash, req, limit)
			if res != nil {
				return nil, res
			}
			resp.File = file
			return resp, nil
		}
	}
	raw, err := r.git(ctx, rawMaxBytes, append([]string{"show", "-z", commitFormat, "--raw", "--no-abbrev", "-M",
		"--diff-merges=first-parent", "--no-ext-diff", "--no-textconv", hash, "--"}, r.userPathspec()...)...)
	if err != nil {
		return nil, gitFailure(ctx, "git show", err)
	}
	if raw.truncated {
		return nil, tooManyChanges(req.Rev)
	}
	h, next, perr := parseHeader(raw.stdout, 0)
	if perr != nil {
		return nil, plugin.Failed(errcode.GitFailed, "git show printed output this tool cannot read")
	}
	entries, _, perr := parseRaw(raw.stdout, next)
	if perr != nil {
		return nil, plugin.Failed(errcode.GitFailed, "git show printed a change list this tool cannot read")
	}
	commit, s, res := r.commitOf(ctx, h, entries, true)
	if res != nil {
		return nil, res
	}
	patch, truncated, res := r.patch(ctx, []string{"show", "--format=", "--patch", "-M", "--diff-merges=first-parent",
		"--no-ext-diff", "--no-textconv", "--no-color", hash}, s.excludes, limit)
	if res != nil {
		return nil, res
	}
	resp.Commit, resp.Patch, resp.Truncated, resp.OmittedSecrets = commit, &patch, truncated, s.omitted
	commit.OmittedSecrets = nil // named once, at the top
	return resp, nil
}

// fileAt reads one blob at a revision, bounded and text only, with the
// same secret rules as fs.read (the path's name was judged by locate).
func (r *repo) fileAt(ctx context.Context, hash string, req *ShowRequest, limit int) (*FileAtRevision, *plugin.Result) {
	object := hash + ":" + r.pathspec
	blob, err := r.git(ctx, 128, "rev-parse", "--verify", "--quiet", object)
	if err != nil {
		return nil, gitFailure(ctx, "resolving "+req.Path, err)
	}
	sizeOut, err := r.git(ctx, 64, "cat-file", "-s", object)
	if err != nil {
		return nil, gitFailure(ctx, "sizing "+req.Path, err)
	}
	size, _ := strconv.ParseInt(strings.TrimSpace(string(sizeOut.stdout)), 10, 64)
	if size > int64(limit) {
		return nil, plugin.Refused(errcode.GitFileTooLarge, fmt.Sprintf("%s at %s holds %d bytes, more than the %d this call allows (at most %d)",
			req.Path, req.Rev, size, limit, PatchMaxBytes))
	}
	out, err := r.git(ctx, limit, "cat-file", "blob", object)
	if err != nil {
		return nil, gitFailure(ctx, "reading "+req.Path, err)
	}
	if out.truncated {
		return nil, plugin.Refused(errcode.GitFileTooLarge, fmt.Sprintf("%s at %s is larger than %d bytes", req.Path, req.Rev, limit))
	}
	content := out.stdout
	if bytes.IndexByte(content, 0) >= 0 || !utf8.Valid(content) {
		return nil, plugin.Refused(errcode.GitBinaryRefused, fmt.Sprintf("%s at %s is not UTF-8 text", req.Path, req.Rev))
	}
	if pattern := pathpolicy.SecretContentOf(content, r.pathspec); pattern != "" {
		return nil, plugin.Refused(errcode.ReachSecretRefused, fmt.Sprintf("%s at %s is a secret (%s)", req.Path, req.Rev, pattern))
	}
	return &FileAtRevision{
		Path:          r.scope.DisplayPath(r.top + "/" + r.pathspec),
		Blob:          strings.TrimSpace(string(blob.stdout)),
		Content:       string(content),
		Size:          int64(len(content)),
		ContentDigest: canon.DigestBytes(content),
	}, nil
}

// patch runs a patch-producing command limited to the request's path with
// every secret excluded, and bounds it at a line.
func (r *repo) patch(ctx context.Context, args, excludes []string, limit int) (string, bool, *plugin.Result) {
	args = append(append(append(args, "--"), r.userPathspec()...), excludes...)
	out, err := r.git(ctx, limit, args...)
	if err != nil {
		return "", false, gitFailure(ctx, "git "+args[0], err)
	}
	text := out.stdout
	if out.truncated {
		if i := bytes.LastIndexByte(text, '\n'); i >= 0 {
			text = text[:i+1]
		}
	}
	return strings.ToValidUTF8(strings.TrimLeft(string(text), "\n"), "\uFFFD"), out.truncated, nil
}

func tooManyChanges(what string) *plugin.Result {
	return plugin.Refused(errcode.GitChangeTooLarge, fmt.Sprintf("%s changes more files than can be screened for secrets in one call; name a narrower path", what))
}
