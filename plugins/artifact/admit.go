package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

type admitRequest struct {
	Path      string  `json:"path"`
	MediaType string  `json:"media_type"`
	Labels    *Labels `json:"labels"`
}

// admit snapshots the file into the blob store and gives the run a
// reference to it. The kernel held the path to the step's reach already
// (admit's path input); it is contained again here, where it is opened.
func (s *store) admit(ctx context.Context, call *plugin.Call, req *admitRequest) *plugin.Result {
	scope, res := pathpolicy.NewScope(call.Context)
	if res != nil {
		return res
	}
	target, res := scope.Resolve(req.Path)
	if res != nil {
		return res
	}
	if target.Info == nil || !target.Info.Mode().IsRegular() {
		return plugin.Refused(errcode.ArtifactNotRegularFile, fmt.Sprintf("%s is not a regular file; artifact.admit snapshots one file", req.Path))
	}
	ref := refFor(call)
	return s.withRunLock(call.Context.RunID, func(dir string) *plugin.Result {
		if r, res := s.lookup(call.Context.RunID, ref); res == nil {
			return answer(descriptorOf(r)) // the same call, sent again
		}
		used, err := admitted(dir)
		if err != nil {
			return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot total the run's admissions: "+err.Error())
		}
		room := int64(MaxRunAdmission) - used
		if target.Info.Size() > room {
			return limitRefusal(req.Path, target.Info.Size(), used)
		}
		digest, size, head, res := s.snapshot(ctx, target, room)
		if res != nil {
			return res
		}
		if size > room {
			return limitRefusal(req.Path, size, used)
		}
		mt := req.MediaType
		if mt == "" {
			mt = mediaType(target.Real, head)
		}
		r := &record{Ref: ref, RunID: call.Context.RunID, Digest: digest, Bytes: size, MediaType: mt,
			Sharing: sharingOf(req.Labels), Origin: originAdmitted, Source: target.Real}
		if err := writeRecord(dir, r); err != nil {
			return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot record the artifact: "+err.Error())
		}
		return answer(descriptorOf(r))
	})
}

func limitRefusal(path string, size, used int64) *plugin.Result {
	return plugin.Refused(errcode.ArtifactAdmissionLimit, fmt.Sprintf("admitting %s (%d bytes) would take this run past its %d MiB admission ceiling (%d bytes admitted already)", path, size, MaxRunAdmission>>20, used))
}

// snapshot copies the file into the blob store, hashing it as it goes,
// and answers its digest, its size and its first 512 bytes. It copies at
// most room+1 bytes, so a file that grew past the ceiling while it was
// read is refused, not kept.
func (s *store) snapshot(ctx context.Context, target *pathpolicy.Target, room int64) (digest string, size int64, head []byte, res *plugin.Result) {
	// O_NOFOLLOW: the path was resolved, so a link swapped in since is
	// refused rather than followed.
	f, err := os.OpenFile(target.Real, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return "", 0, nil, plugin.Refused(errcode.ArtifactNotRegularFile, fmt.Sprintf("%s cannot be opened: %v", target.Display, err))
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || !os.SameFile(info, target.Info) {
		return "", 0, nil, plugin.Refused(errcode.ArtifactNotRegularFile, fmt.Sprintf("%s changed while it was admitted", target.Display))
	}
	tmpDir := filepath.Join(s.dir, "tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return "", 0, nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot create the artifact store: "+err.Error())
	}
	tmp, err := os.CreateTemp(tmpDir, "admit-*")
	if err != nil {
		return "", 0, nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot create a snapshot: "+err.Error())
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	h := sha256.New()
	hw := &headWriter{}
	n, err := io.Copy(io.MultiWriter(tmp, h, hw), &ctxReader{ctx: ctx, r: io.LimitReader(f, room+1)})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return "", 0, nil, plugin.Failed(errcode.ArtifactCancelled, "the admission was cancelled; nothing was kept")
		}
		return "", 0, nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot copy the file: "+err.Error())
	}
	if n > room {
		return "", n, nil, nil
	}
	hexSum := hex.EncodeToString(h.Sum(nil))
	digest = "sha256:" + hexSum
	if err := tmp.Chmod(0o400); err != nil {
		return "", 0, nil, plugin.Failed(errcode.ArtifactStoreUnavailable, err.Error())
	}
	if err := tmp.Sync(); err != nil {
		return "", 0, nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot keep the snapshot: "+err.Error())
	}
	if err := s.keepBlob(tmp.Name(), digest); err != nil {
		return "", 0, nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot keep the snapshot: "+err.Error())
	}
	return digest, n, hw.b, nil
}

// keepBlob moves a finished file into the blob store under its digest.
func (s *store) keepBlob(tmpPath, digest string) error { return s.KeepBlob(tmpPath, digest) }

// headWriter keeps the first 512 bytes, what content sniffing reads.
type headWriter struct{ b []byte }

func (w *headWriter) Write(p []byte) (int, error) {
	if room := 512 - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// ctxReader stops a long copy when the call is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// mediaTypes are the extensions named here, so a file's media type does not
// depend on the host's mime tables; other files are sniffed.
var mediaTypes = map[string]string{
	".json": "application/json", ".jsonl": "application/x-ndjson", ".ndjson": "application/x-ndjson",
	".txt": "text/plain", ".log": "text/plain", ".md": "text/markdown", ".csv": "text/csv",
	".tsv": "text/tab-separated-values", ".yaml": "application/yaml", ".yml": "application/yaml",
	".html": "text/html", ".xml": "application/xml", ".pdf": "application/pdf", ".png": "image/png",
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".zip": "application/zip",
	".gz": "application/gzip", ".tar": "application/x-tar", ".wasm": "application/wasm",
}

func mediaType(path string, head []byte) string {
	if mt, ok := mediaTypes[strings.ToLower(filepath.Ext(path))]; ok {
		return mt
	}
	mt := http.DetectContentType(head)
	if i := strings.IndexByte(mt, ';'); i > 0 {
		mt = mt[:i]
	}
	return mt
}
