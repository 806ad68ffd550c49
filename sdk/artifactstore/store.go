// Package artifactstore is the project's artifact store on disk, the one
// format the artifact.* plugin and the kernel (a script's large inputs, a
// request's payload past 64 KiB) both keep artifacts in:
//
//	artifacts/blobs/<hex>          content by its sha256, read-only, immutable
//	artifacts/runs/<run key>/      one run's references, <ref>.json each
//	artifacts/runs/<run key>/lock  flocked while a reference is added
//	artifacts/tmp/                 content being written
//
// A run key is the digest of the run id, so no run id shapes a path. A
// reference (art_<32 hex>) names an artifact of one run only.
//
// It imports neither kernel nor plugin packages: both sides share it.
package artifactstore

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
	"regexp"
	"strings"

	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/pathpolicy"
)

// Schema names the descriptor format of an artifact, and PageSchema the
// format of one page read from it.
const (
	Schema     = "runx.artifact.v1"
	PageSchema = "runx.artifact_page.v1"
)

// Origins of a run's reference.
const (
	OriginAdmitted = "admitted" // a file artifact.admit snapshotted
	OriginOpened   = "opened"   // a retained artifact artifact.open checked
	OriginStored   = "stored"   // a canonical JSON value kept by runx
)

// SharingDefault is who may see an artifact's content unless labelled.
const SharingDefault = "configured_model"

// Errors a lookup or a read answers.
var (
	// ErrRefUnknown: the run holds no such reference.
	ErrRefUnknown = errors.New("the run holds no such artifact reference")
	// ErrDamaged: a record or content is not what was kept.
	ErrDamaged = errors.New("the artifact store's record is damaged")
	// ErrDigestMismatch: the content's digest is not its record's.
	ErrDigestMismatch = errors.New("the artifact's content does not match its digest")
)

var refPattern = regexp.MustCompile(`^art_[0-9a-f]{32}$`)

// ValidRef reports whether ref has the shape of a reference.
func ValidRef(ref string) bool { return refPattern.MatchString(ref) }

// Store is one project's artifact store.
type Store struct {
	Dir     string // <project>/artifacts
	Project string // the project state directory, symlinks resolved
}

// Open is the store of the project state directory, made if it is not
// there. A relative directory (RUNX_PROJECT_DIR=.runx) is taken from the
// process's working directory, as the rest of the project's state is.
func Open(projectDir string) (*Store, error) {
	if projectDir == "" {
		return nil, fmt.Errorf("no project state directory")
	}
	projectDir, err := filepath.Abs(projectDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(projectDir, 0o700); err != nil {
		return nil, err
	}
	real, err := pathpolicy.RealPath(projectDir)
	if err != nil {
		return nil, err
	}
	return &Store{Dir: filepath.Join(real, "artifacts"), Project: real}, nil
}

// Root names this project's store without its host path.
func (s *Store) Root() string { return "sha256:" + HexDigest([]byte(s.Project)) }

// Record is one run's reference to an artifact, as kept on disk. Source
// and Reach are private: no answer carries them.
type Record struct {
	Ref       string `json:"ref"`
	RunID     string `json:"run_id"`
	Digest    string `json:"digest"`
	Bytes     int64  `json:"bytes"`
	MediaType string `json:"media_type"`
	Sharing   string `json:"sharing"`
	Origin    string `json:"origin"`
	// Packet is the packet schema the content meets, for an artifact
	// runx kept as a packet (kernel/packet); empty otherwise.
	Packet string `json:"packet,omitempty"`
	// Source is the real path an admitted file was read from: a read is
	// held to the reader's reach by it.
	Source string `json:"source,omitempty"`
	// Reach is the reach a read needs beyond that (inputs, for an opened
	// artifact, as opening it needed).
	Reach string `json:"reach,omitempty"`
}

// HexDigest is the lowercase hex sha256 of b.
func HexDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RunDir is where a run's references are kept.
func (s *Store) RunDir(runID string) string {
	return filepath.Join(s.Dir, "runs", HexDigest([]byte(runID))[:32])
}

// BlobPath is where the content of digest is kept.
func (s *Store) BlobPath(digest string) string {
	return filepath.Join(s.Dir, "blobs", strings.TrimPrefix(digest, "sha256:"))
}

// WithRunLock runs fn holding the run's reference lock, so two calls of a
// run (a fan-out) never both pass a ceiling nor write one reference twice.
func (s *Store) WithRunLock(runID string, fn func(dir string) error) error {
	dir := s.RunDir(runID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockExclusive(f); err != nil {
		return err
	}
	defer unlock(f)
	return fn(dir)
}

// Lookup is the run's record of ref: ErrRefUnknown for a ref of another
// run, or none.
func (s *Store) Lookup(runID, ref string) (*Record, error) {
	if !ValidRef(ref) {
		return nil, ErrRefUnknown
	}
	raw, err := os.ReadFile(filepath.Join(s.RunDir(runID), ref+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrRefUnknown
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(raw, &r); err != nil || r.RunID != runID || r.Ref != ref {
		return nil, ErrDamaged
	}
	return &r, nil
}

// WriteRecord keeps r in the run's directory dir (the caller holds the
// run's lock).
func WriteRecord(dir string, r *Record) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, r.Ref+".json"), raw, 0o600)
}

// KeepBlob moves a finished file into the blob store under its digest;
// content already there is the same content, so the new copy is dropped.
func (s *Store) KeepBlob(tmpPath, digest string) error {
	blobs := filepath.Join(s.Dir, "blobs")
	if err := os.MkdirAll(blobs, 0o700); err != nil {
		return err
	}
	dst := s.BlobPath(digest)
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	return os.Rename(tmpPath, dst)
}

// KeepBytes keeps content in the blob store (read-only, synced) and
// answers its digest; content already kept is not written again.
func (s *Store) KeepBytes(content []byte) (string, error) {
	digest := "sha256:" + HexDigest(content)
	if _, err := os.Lstat(s.BlobPath(digest)); err == nil {
		return digest, nil
	}
	tmpDir := filepath.Join(s.Dir, "tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(tmpDir, "keep-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(content)
	if err == nil {
		err = tmp.Chmod(0o400)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if err := s.KeepBlob(tmp.Name(), digest); err != nil {
		return "", err
	}
	return digest, nil
}

// ReadAll reads the whole content of r, held to its record: at most max
// bytes, exactly r.Bytes of them, whose sha256 is r.Digest
// (ErrDigestMismatch otherwise). A content changed after it was kept is
// never given as the artifact's.
func (s *Store) ReadAll(r *Record, max int64) ([]byte, error) {
	if r.Bytes > max {
		return nil, fmt.Errorf("%s holds %d bytes, past the %d a whole read takes", r.Ref, r.Bytes, max)
	}
	f, err := os.Open(s.BlobPath(r.Digest))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, r.Bytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(content)) != r.Bytes || "sha256:"+HexDigest(content) != r.Digest {
		return nil, ErrDigestMismatch
	}
	return content, nil
}
