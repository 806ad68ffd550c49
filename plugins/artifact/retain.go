package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

type storeRequest struct {
	Value  json.RawMessage `json:"value"`
	Labels *Labels         `json:"labels"`
}

type openRequest struct {
	Artifact struct {
		ArtifactID string `json:"artifact_id"`
		Root       string `json:"root"`
		Digest     string `json:"digest"`
		Bytes      int64  `json:"bytes"`
		MediaType  string `json:"media_type"`
		Labels     *Labels
	} `json:"artifact"`
}

const retainedMediaType = "application/json"

// root names this project's artifact store without its host path.
func (s *store) root() string { return "sha256:" + hexDigest([]byte(s.project)) }

// needsInputsReach refuses store and open outside reach inputs: a retained
// artifact outlives the run, so keeping or reopening one reaches past the
// workspace the step was given.
func needsInputsReach(call *plugin.Call) *plugin.Result {
	if call.Context.Reach != pathpolicy.ReachInputs {
		return plugin.Refused(errcode.ArtifactReachRequired, fmt.Sprintf("%s needs a step with reach: inputs (this one has reach: %s)", call.Capability, orWorkspace(call.Context.Reach)))
	}
	return nil
}

func orWorkspace(reach string) string {
	if reach == "" {
		return pathpolicy.ReachWorkspace
	}
	return reach
}

// retain keeps the value's canonical JSON in the blob store under its
// digest and answers its descriptor: the same value is the same artifact.
func (s *store) retain(call *plugin.Call, req *storeRequest) *plugin.Result {
	if res := needsInputsReach(call); res != nil {
		return res
	}
	content, err := canon.CanonicalJSON(req.Value)
	if err != nil {
		return plugin.Refused(errcode.ArtifactValueInvalid, "the value has no canonical JSON: "+err.Error())
	}
	digest := canon.DigestBytes(content)
	if _, err := os.Lstat(s.blobPath(digest)); errors.Is(err, fs.ErrNotExist) {
		tmpDir := filepath.Join(s.dir, "tmp")
		if err := os.MkdirAll(tmpDir, 0o700); err != nil {
			return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot create the artifact store: "+err.Error())
		}
		tmp := filepath.Join(tmpDir, "store-"+hexDigest([]byte(call.Context.CallID)))
		if err := atomicfile.Write(tmp, content, 0o400); err != nil {
			return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot keep the artifact: "+err.Error())
		}
		if err := s.keepBlob(tmp, digest); err != nil {
			return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot keep the artifact: "+err.Error())
		}
	}
	return answer(&Descriptor{Schema: ArtifactSchema, ArtifactID: digest, Root: s.root(), Digest: digest,
		Bytes: int64(len(content)), MediaType: retainedMediaType, Origin: originStored, Labels: Labels{Sharing: sharingOf(req.Labels)}})
}

// open checks a retained artifact's descriptor against this project's
// store (its root, its size, then its content's digest) and gives the run
// a reference to it.
func (s *store) open(call *plugin.Call, req *openRequest) *plugin.Result {
	if res := needsInputsReach(call); res != nil {
		return res
	}
	a := &req.Artifact
	if a.Root != s.root() {
		return plugin.Refused(errcode.ArtifactRootMismatch, "the artifact was retained by another project's store; artifact.open opens only this project's artifacts")
	}
	if a.ArtifactID != a.Digest {
		return plugin.Refused(errcode.ArtifactDigestMismatch, "the descriptor's artifact_id and digest differ; a retained artifact is named by its digest")
	}
	f, err := os.Open(s.blobPath(a.Digest))
	if errors.Is(err, fs.ErrNotExist) {
		return plugin.Refused(errcode.ArtifactNotFound, "this project's store holds no artifact "+a.ArtifactID)
	}
	if err != nil {
		return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot open the artifact: "+err.Error())
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot open the artifact: "+err.Error())
	}
	if info.Size() != a.Bytes {
		return plugin.Refused(errcode.ArtifactSizeMismatch, fmt.Sprintf("the stored artifact holds %d bytes and the descriptor says %d", info.Size(), a.Bytes))
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot read the artifact: "+err.Error())
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != a.Digest {
		return plugin.Refused(errcode.ArtifactDigestMismatch, "the stored content's digest is not the descriptor's; the artifact was changed after it was retained")
	}
	mt := a.MediaType
	if mt == "" {
		mt = retainedMediaType
	}
	ref := refFor(call)
	return s.withRunLock(call.Context.RunID, func(dir string) *plugin.Result {
		r := &record{Ref: ref, RunID: call.Context.RunID, Digest: a.Digest, Bytes: a.Bytes, MediaType: mt,
			Sharing: sharingOf(a.Labels), Origin: originOpened, Reach: pathpolicy.ReachInputs}
		if err := writeRecord(dir, r); err != nil {
			return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot record the artifact: "+err.Error())
		}
		return answer(descriptorOf(r))
	})
}
