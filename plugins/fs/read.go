package fs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// fs.read's bounds. A read larger than its bound is refused, never
// truncated: a model that sees half a file and believes it whole edits the
// wrong thing.
const (
	ReadDefaultMaxBytes = 1 << 20
	ReadMaxBytes        = 4 << 20
)

// ReadRequest is fs.read's input.
type ReadRequest struct {
	Path     string `json:"path"`
	MaxBytes int64  `json:"max_bytes,omitempty"`
}

// ReadResponse is fs.read's output. ContentDigest is what a later write
// names as expected_digest.
type ReadResponse struct {
	Path          string `json:"path"`
	Content       string `json:"content"`
	Size          int64  `json:"size"`
	ContentDigest string `json:"content_digest"`
}

func read(scope *Scope, req *ReadRequest) (*ReadResponse, *plugin.Result) {
	if req.Path == "" {
		return nil, plugin.Refused(errcode.FSRequestInvalid, "fs.read needs a path")
	}
	limit := req.MaxBytes
	if limit == 0 {
		limit = ReadDefaultMaxBytes
	}
	if limit < 0 || limit > ReadMaxBytes {
		return nil, plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("max_bytes must be between 1 and %d", ReadMaxBytes))
	}
	t, res := scope.Resolve(req.Path)
	if res != nil {
		return nil, res
	}
	content, res := readContained(t, req.Path, limit)
	if res != nil {
		return nil, res
	}
	if bytes.IndexByte(content, 0) >= 0 || !utf8.Valid(content) {
		return nil, plugin.Refused(errcode.FSBinaryRefused, fmt.Sprintf("%s is not UTF-8 text; fs.read returns text only", req.Path))
	}
	// Resolve judged the key by the file on disk; judging the bytes read as
	// well closes the gap in which the file could have changed.
	if pattern := secretContentOf(content, t.Display, t.Real); pattern != "" {
		return nil, secretRefusal(req.Path, pattern)
	}
	return &ReadResponse{
		Path:          t.Display,
		Content:       string(content),
		Size:          int64(len(content)),
		ContentDigest: DigestBytes(content),
	}, nil
}

// readContained reads a resolved regular file of at most limit bytes. It
// opens through an os.Root on the reach root, so a symlink swapped in after
// Resolve still cannot carry the open outside, and it checks that what it
// opened is the file Resolve judged.
func readContained(t *Target, asked string, limit int64) ([]byte, *plugin.Result) {
	if t.Info == nil {
		return nil, plugin.Refused(errcode.FSNotFound, fmt.Sprintf("%s does not exist", asked))
	}
	if !t.Info.Mode().IsRegular() {
		return nil, plugin.Refused(errcode.FSNotAFile, fmt.Sprintf("%s is not a regular file", asked))
	}
	if t.Info.Size() > limit {
		return nil, tooLarge(asked, t.Info.Size(), limit)
	}
	root, err := os.OpenRoot(t.Root)
	if err != nil {
		return nil, plugin.Failed(errcode.FSReadFailed, fmt.Sprintf("cannot open the root holding %s: %v", asked, err))
	}
	defer root.Close()
	f, err := root.OpenFile(filepath.FromSlash(t.Rel), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			return nil, plugin.Refused(errcode.FSNotFound, fmt.Sprintf("%s does not exist", asked))
		}
		return nil, plugin.Failed(errcode.FSReadFailed, fmt.Sprintf("cannot open %s: %v", asked, err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !os.SameFile(info, t.Info) {
		return nil, plugin.Failed(errcode.FSChangedDuringRead, fmt.Sprintf("%s changed while it was being opened; read it again", asked))
	}
	content, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, plugin.Failed(errcode.FSReadFailed, fmt.Sprintf("cannot read %s: %v", asked, err))
	}
	if int64(len(content)) > limit {
		return nil, tooLarge(asked, int64(len(content)), limit)
	}
	return content, nil
}

func tooLarge(asked string, size, limit int64) *plugin.Result {
	return plugin.Refused(errcode.FSReadTooLarge, fmt.Sprintf("%s holds %d bytes, more than the %d this read allows (at most %d); read a smaller file or raise max_bytes",
		asked, size, limit, ReadMaxBytes))
}

// DigestBytes is the content digest runx names files by: sha256 over the
// exact bytes.
func DigestBytes(b []byte) string { return canon.DigestBytes(b) }
