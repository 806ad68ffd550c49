package git

import (
	"context"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// DiffRequest is git.diff's input. From defaults to HEAD. Without To the
// diff is against the working tree (tracked files, staged or not, as
// `git diff <from>` shows them); with To it is between two revisions.
type DiffRequest struct {
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
	Path     string `json:"path,omitempty"`
	MaxBytes int    `json:"max_bytes,omitempty"`
}

// DiffResponse is git.diff's output.
type DiffResponse struct {
	Repository     string          `json:"repository"`
	From           string          `json:"from"`
	FromHash       string          `json:"from_hash"`
	To             string          `json:"to,omitempty"`
	ToHash         string          `json:"to_hash,omitempty"`
	WorkingTree    bool            `json:"working_tree"`
	Files          []FileChange    `json:"files"`
	Patch          string          `json:"patch"`
	Truncated      bool            `json:"truncated"`
	OmittedSecrets []OmittedSecret `json:"omitted_secrets,omitempty"`
}

func gitDiff(ctx context.Context, r *repo, req *DiffRequest) (*DiffResponse, *plugin.Result) {
	limit, res := patchLimit(req.MaxBytes)
	if res != nil {
		return nil, res
	}
	resp := &DiffResponse{Repository: r.display, From: orHEAD(req.From), To: req.To, WorkingTree: req.To == ""}
	if resp.FromHash, res = r.resolveRev(ctx, resp.From); res != nil {
		return nil, res
	}
	revs := []string{resp.FromHash}
	if req.To != "" {
		if resp.ToHash, res = r.resolveRev(ctx, req.To); res != nil {
			return nil, res
		}
		revs = append(revs, resp.ToHash)
	}
	common := []string{"-M", "--no-ext-diff", "--no-textconv"}
	rawArgs := append(append(append([]string{"diff", "-z", "--raw", "--no-abbrev"}, common...), revs...), "--")
	raw, err := r.git(ctx, rawMaxBytes, append(rawArgs, r.userPathspec()...)...)
	if err != nil {
		return nil, gitFailure(ctx, "git diff", err)
	}
	if raw.truncated {
		return nil, tooManyChanges("this diff")
	}
	entries, _, perr := parseRaw(raw.stdout, 0)
	if perr != nil {
		return nil, plugin.Failed(errcode.GitFailed, "git diff printed a change list this tool cannot read")
	}
	s, res := r.sortChanges(ctx, entries, true, resp.WorkingTree)
	if res != nil {
		return nil, res
	}
	patchArgs := append(append([]string{"diff", "--patch", "--no-color"}, common...), revs...)
	resp.Patch, resp.Truncated, res = r.patch(ctx, patchArgs, s.excludes, limit)
	if res != nil {
		return nil, res
	}
	resp.Files, resp.OmittedSecrets = s.files, s.omitted
	return resp, nil
}
