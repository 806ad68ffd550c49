package artifactstore

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Batch keeps many contents and records with one flush at the end: each
// file is written whole and renamed into place unsynced, and Commit makes
// them all durable at once (syncfs(2) on Linux, one fsync a file
// elsewhere). A script's array input keeps one artifact an item; an fsync
// each was measured at about 9 ms an item here, 9 s for 1,000 items.
// Nothing reads a batch's files as durable before Commit returns.
type Batch struct {
	s       *Store
	written []string
}

// NewBatch starts a batch on the store.
func (s *Store) NewBatch() *Batch { return &Batch{s: s} }

// Keep keeps content in the blob store and answers its digest; content
// already kept is not written again.
func (b *Batch) Keep(content []byte) (string, error) {
	digest := "sha256:" + HexDigest(content)
	dst := b.s.BlobPath(digest)
	if _, err := os.Lstat(dst); err == nil {
		return digest, nil
	}
	if err := os.MkdirAll(filepath.Join(b.s.Dir, "blobs"), 0o700); err != nil {
		return "", err
	}
	tmpDir := filepath.Join(b.s.Dir, "tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return "", err
	}
	if err := writeUnsynced(tmpDir, "keep-*", dst, content, 0o400); err != nil {
		return "", err
	}
	b.written = append(b.written, dst)
	return digest, nil
}

// WriteRecord keeps r in the run's directory dir (the caller holds the
// run's lock).
func (b *Batch) WriteRecord(dir string, r *Record) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, r.Ref+".json")
	if err := writeUnsynced(dir, "."+r.Ref+".tmp-*", dst, raw, 0o600); err != nil {
		return err
	}
	b.written = append(b.written, dst)
	return nil
}

// Commit makes every file the batch wrote durable, and their directory
// entries with them.
func (b *Batch) Commit() error {
	if len(b.written) == 0 {
		return nil
	}
	if err := flush(b.s.Dir, b.written); err != nil {
		return err
	}
	b.written = nil
	return nil
}

// writeUnsynced writes data to a temporary file in tmpDir and renames it
// to dst, so a reader sees the whole file or none.
func writeUnsynced(tmpDir, pattern, dst string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(tmpDir, pattern)
	if err != nil {
		return err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, dst)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
