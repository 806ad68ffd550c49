package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// The artifact store's format (blobs by digest, a run's references, its
// lock) belongs to sdk/artifactstore, which the kernel shares: a script's
// large inputs are kept there as artifacts of the run.

// store is the artifact store of one call's project.
type store struct {
	*artifactstore.Store
	dir     string // <project>/artifacts
	project string // the project state directory, symlinks resolved
}

// binding is what the kernel tells every call beyond its input.
type binding struct {
	ProjectDir string `json:"project_dir"`
}

func openStore(c plugin.Context) (*store, *plugin.Result) {
	var b binding
	if len(c.Binding) > 0 {
		if err := json.Unmarshal(c.Binding, &b); err != nil {
			return nil, plugin.Refused(errcode.ArtifactStateMissing, "the call's binding is not a JSON object with project_dir: "+err.Error())
		}
	}
	if b.ProjectDir == "" || !filepath.IsAbs(b.ProjectDir) {
		return nil, plugin.Refused(errcode.ArtifactStateMissing, "the call names no absolute project state directory (binding project_dir), so no artifact can be kept")
	}
	if c.RunID == "" {
		return nil, plugin.Refused(errcode.ArtifactStateMissing, "the call names no run, and every artifact reference belongs to one")
	}
	st, err := artifactstore.Open(b.ProjectDir)
	if err != nil {
		return nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot open the project's artifact store: "+err.Error())
	}
	return &store{Store: st, dir: st.Dir, project: st.Project}, nil
}

// record is one run's reference to an artifact, as kept on disk.
type record = artifactstore.Record

// Descriptor is runx.artifact.v1 as the capabilities answer it.
type Descriptor = artifactstore.Descriptor

// Labels say who may see an artifact's content.
type Labels = artifactstore.Labels

const (
	sharingDefault = artifactstore.SharingDefault
	originAdmitted = artifactstore.OriginAdmitted
	originOpened   = artifactstore.OriginOpened
	originStored   = artifactstore.OriginStored
)

func descriptorOf(r *record) *Descriptor {
	return &Descriptor{Schema: ArtifactSchema, Ref: r.Ref, Digest: r.Digest, Bytes: r.Bytes, MediaType: r.MediaType, Origin: r.Origin, Labels: Labels{Sharing: r.Sharing}}
}

func sharingOf(l *Labels) string {
	if l == nil || l.Sharing == "" {
		return sharingDefault
	}
	return l.Sharing
}

func hexDigest(b []byte) string { return artifactstore.HexDigest(b) }

func (s *store) blobPath(digest string) string { return s.BlobPath(digest) }

// refFor is the reference a call gives: a digest of the call, so a call
// the kernel sends again answers the same reference, never a second one.
func refFor(call *plugin.Call) string {
	h := sha256.New()
	for _, part := range []string{call.Context.RunID, call.Context.CallID, call.Capability, string(call.Input)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return "art_" + hex.EncodeToString(h.Sum(nil))[:32]
}

// withRunLock runs fn holding the run's reference lock, so two calls of a
// run (a fan-out) never both pass the admission ceiling.
func (s *store) withRunLock(runID string, fn func(dir string) *plugin.Result) *plugin.Result {
	var res *plugin.Result
	if err := s.WithRunLock(runID, func(dir string) error { res = fn(dir); return nil }); err != nil {
		return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot lock the run's artifacts: "+err.Error())
	}
	return res
}

// lookup is the run's record of ref; a ref of another run, or none, is
// unknown here: a reference names an artifact of one run only.
func (s *store) lookup(runID, ref string) (*record, *plugin.Result) {
	r, err := s.Lookup(runID, ref)
	switch {
	case errors.Is(err, artifactstore.ErrRefUnknown):
		return nil, plugin.Refused(errcode.ArtifactRefUnknown, fmt.Sprintf("%s names no artifact of this run; a reference is good only in the run that admitted or opened it", ref))
	case errors.Is(err, artifactstore.ErrDamaged):
		return nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "the artifact reference record is damaged")
	case err != nil:
		return nil, plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot read the artifact reference: "+err.Error())
	}
	return r, nil
}

// admitted is the bytes the run has admitted so far.
func admitted(dir string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return 0, err
		}
		var r record
		if json.Unmarshal(raw, &r) == nil && r.Origin == originAdmitted {
			total += r.Bytes
		}
	}
	return total, nil
}

// writeRecord keeps r in the run's directory (the caller holds the lock).
func writeRecord(dir string, r *record) error { return artifactstore.WriteRecord(dir, r) }

// scopeAllows holds a read of r to the reach of the step making it: the
// reference grants nothing its holder's reach does not.
func scopeAllows(c plugin.Context, r *record) *plugin.Result {
	if r.Reach == pathpolicy.ReachInputs && c.Reach != pathpolicy.ReachInputs {
		return plugin.Refused(errcode.ArtifactReachRefused, fmt.Sprintf("%s is a retained artifact, which only a step with reach: inputs reads, as only such a step opens one", r.Ref))
	}
	if r.Source == "" {
		return nil
	}
	scope, res := pathpolicy.NewScope(c)
	if res != nil {
		return res
	}
	if _, res := scope.Resolve(r.Source); res != nil {
		return plugin.Refused(errcode.ArtifactReachRefused, fmt.Sprintf("%s was admitted from a file this step's reach does not hold (%s); holding a reference grants no permission", r.Ref, res.Code))
	}
	return nil
}
