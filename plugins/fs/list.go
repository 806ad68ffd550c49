package fs

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
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
		return nil, plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("max_entries must be between 1 and %d", ListMaxEntries))
	}
	t, res := scope.Resolve(req.Path)
	if res != nil {
		return nil, res
	}
	if t.Info == nil {
		return nil, plugin.Refused(errcode.FSNotFound, fmt.Sprintf("%s does not exist", orRoot(req.Path)))
	}
	if !t.Info.IsDir() {
		return nil, plugin.Refused(errcode.FSNotADirectory, fmt.Sprintf("%s is not a directory; fs.read reads a file", orRoot(req.Path)))
	}
	resp := &ListResponse{Path: t.Display, Entries: []ListEntry{}}
	var buf []byte
	err := walk(ctx, scope, t, req.Recursive, func(e *walkEntry) bool {
		if len(resp.Entries) == limit {
			resp.Truncated = true
			return false
		}
		entry := ListEntry{Path: e.display, Kind: e.kind, Worktree: e.worktree}
		if e.kind == KindFile {
			// A secret by content is left out as one by name is: a read
			// would refuse it, so a listing shows not even that it is
			// there. One that cannot be read is shown, as a read would
			// say so itself.
			if head, ok := fileHead(e.real, &buf); ok && secretContentOf(head, e.dirent.Name()) != "" {
				return true
			}
			if info, err := e.dirent.Info(); err == nil {
				size := info.Size()
				entry.Size = &size
			}
		}
		if e.kind == KindSymlink && linksToSecret(scope, e, &buf) {
			// A link is judged by what a read of it would reach: a
			// secret by the target's name, place or content is left
			// out as the secret itself is.
			return true
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

// linksToSecret reports whether a read of the symlink e would be refused
// as a secret: its target's name or place is one (the scope's own
// refusal), or the target is a regular file whose content is. A link a
// read refuses for any other reason (it leads out of reach, or nowhere) is
// still listed, as before: the listing shows it is a link, and a read says
// why it stops.
func linksToSecret(scope *Scope, e *walkEntry, buf *[]byte) bool {
	t, res := scope.Resolve(e.real)
	if res != nil {
		return res.Code == errcode.ReachSecretRefused
	}
	if t.Info == nil || !t.Info.Mode().IsRegular() {
		return false
	}
	head, ok := fileHead(t.Real, buf)
	return ok && secretContentOf(head, e.dirent.Name(), filepath.Base(t.Real)) != ""
}

// fileHead reads the start of a regular file that a content rule judges
// (pathpolicy.ContentScanBytes) into buf, reused across a listing's files.
// Like searchFile it goes to the system calls directly, and its open
// neither follows a final symlink nor blocks on a FIFO.
func fileHead(real string, buf *[]byte) ([]byte, bool) {
	fd, err := syscall.Open(real, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, false
	}
	size := int(min(st.Size, pathpolicy.ContentScanBytes))
	if cap(*buf) < size {
		*buf = make([]byte, size)
	}
	head := (*buf)[:size]
	n := 0
	for n < size {
		m, err := syscall.Read(fd, head[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if m == 0 {
			break // shrank since fstat: judge what is there
		}
		n += m
	}
	return head[:n], true
}

func walkFailure(ctx context.Context, asked string, err error) *plugin.Result {
	if ctx.Err() != nil {
		return plugin.Failed(errcode.FSCancelled, "the call was cancelled before the walk finished")
	}
	return plugin.Failed(errcode.FSReadFailed, fmt.Sprintf("cannot read %s: %v", orRoot(asked), err))
}

func orRoot(p string) string {
	if p == "" {
		return "the workspace root"
	}
	return p
}
