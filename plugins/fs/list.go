package fs

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/sdk/plugin"
)

// fs.list's bounds.
const (
	ListDefaultMaxEntries = 1_000
	ListMaxEntries        = 20_000
)

// ListRequest is fs.list's input. Path defaults to the workspace root.
type ListRequest struct {
	Path       string `json:"path,omitempty"`
	Recursive  bool   `json:"recursive,omitempty"`
	MaxEntries int    `json:"max_entries,omitempty"`
}

// ListEntry is one visible entry. Size is given for regular files only.
// Worktree marks a nested Git worktree, which is listed but not entered
// unless a request names a path inside it.
type ListEntry struct {
	Path     string `json:"path"`
	Kind     string `json:"kind"`
	Size     *int64 `json:"size,omitempty"`
	Worktree bool   `json:"worktree,omitempty"`
}

// ListResponse is fs.list's output. Truncated says more entries exist than
// were returned.
type ListResponse struct {
	Path      string      `json:"path"`
	Entries   []ListEntry `json:"entries"`
	Count     int         `json:"count"`
	Truncated bool        `json:"truncated"`
}

func list(ctx context.Context, scope *Scope, req *ListRequest) (*ListResponse, *plugin.Result) {
	limit := req.MaxEntries
	if limit == 0 {
		limit = ListDefaultMaxEntries
	}
	if limit < 0 || limit > ListMaxEntries {
		return nil, plugin.Refused(CodeRequestInvalid, fmt.Sprintf("max_entries must be between 1 and %d", ListMaxEntries))
	}
	t, res := scope.Resolve(req.Path)
	if res != nil {
		return nil, res
	}
	if t.Info == nil {
		return nil, plugin.Refused(CodeNotFound, fmt.Sprintf("%s does not exist", orRoot(req.Path)))
	}
	if !t.Info.IsDir() {
		return nil, plugin.Refused(CodeNotADirectory, fmt.Sprintf("%s is not a directory; fs.read reads a file", orRoot(req.Path)))
	}
	resp := &ListResponse{Path: t.Display, Entries: []ListEntry{}}
	err := walk(ctx, scope, t, req.Recursive, func(e *walkEntry) bool {
		if len(resp.Entries) == limit {
			resp.Truncated = true
			return false
		}
		entry := ListEntry{Path: e.display, Kind: e.kind, Worktree: e.worktree}
		if e.kind == KindFile {
			if info, err := e.dirent.Info(); err == nil {
				size := info.Size()
				entry.Size = &size
			}
		}
		resp.Entries = append(resp.Entries, entry)
		return true
	})
	if err != nil {
		return nil, walkFailure(ctx, req.Path, err)
	}
	resp.Count = len(resp.Entries)
	return resp, nil
}

func walkFailure(ctx context.Context, asked string, err error) *plugin.Result {
	if ctx.Err() != nil {
		return plugin.Failed(CodeCancelled, "the call was cancelled before the walk finished")
	}
	return plugin.Failed(CodeReadFailed, fmt.Sprintf("cannot read %s: %v", orRoot(asked), err))
}

func orRoot(p string) string {
	if p == "" {
		return "the workspace root"
	}
	return p
}
