package receipt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// IndexFile marks a directory as a receipt store this runx wrote.
const IndexFile = "index.jsonl"

// Store is an append-only directory of receipts: one file per receipt, named
// by its id, plus index.jsonl with one line per stored receipt. Files are
// created exclusively and never rewritten. A Store is safe for concurrent use,
// and several processes may append to one store.
type Store struct {
	dir       string
	indexPath string

	mu      sync.Mutex
	index   *os.File // opened to append at the first line, so reading needs no write access (heldindex.go)
	indexID fileID   // the file index was opened on

	log fileLog // files written since the caller's log last took them (LogWrites)

	// Receipt files read and index lines decoded, which the growth tests
	// count.
	reads, decodes atomic.Int64
}

// Open returns the store in dir. A directory holding index.jsonl is a store;
// a missing or empty directory becomes one (0700, with an empty index). A
// directory holding anything else is refused with CodeStoreUnrecognized and
// nothing in it is read or written: it may be a receipt store from before
// runx kept an index, or not a receipt store at all.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("open receipt store: directory is empty")
	}
	s := &Store{dir: dir, indexPath: filepath.Join(dir, IndexFile)}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create receipt store: %w", err)
		}
		return s, s.initDurable()
	case err != nil:
		return nil, fmt.Errorf("open receipt store: %w", err)
	case !info.IsDir():
		return nil, refuse(errcode.ReceiptStoreUnrecognized, fmt.Sprintf("%s is not a directory; pass a directory for the receipt store", dir), nil)
	}

	idx, err := os.Lstat(filepath.Join(dir, IndexFile))
	switch {
	case err == nil && idx.Mode().IsRegular():
		return s, nil
	case err == nil:
		return nil, unrecognized(dir)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open receipt store: %w", err)
	}
	empty, err := isEmptyDir(dir)
	if err != nil {
		return nil, fmt.Errorf("open receipt store: %w", err)
	}
	if !empty {
		return nil, unrecognized(dir)
	}
	return s, s.initDurable()
}

// initDurable creates the empty index and flushes it with its directory
// entries, once per store: a write-ahead log of the store's files names
// the store by its index (Identity), which a power cut must not change.
func (s *Store) initDurable() error {
	if err := s.initIndex(); err != nil {
		return err
	}
	if err := syncStore(s.dir); err != nil {
		return fmt.Errorf("flush new receipt store: %w", err)
	}
	return nil
}

func unrecognized(dir string) *Error {
	return refuse(errcode.ReceiptStoreUnrecognized, fmt.Sprintf(
		"%s holds files but no %s, so it is not a receipt store this runx wrote and this runx does not read it; "+
			"move it aside to start a new store: mv %s %s.old", dir, IndexFile, dir, dir), nil)
}

// initIndex creates the empty index. Losing a race to another process that
// initialises the same directory is fine: both end with one index.
func (s *Store) initIndex() error {
	f, err := os.OpenFile(filepath.Join(s.dir, IndexFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create receipt index: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("create receipt index: %w", err)
	}
	return nil
}

func isEmptyDir(dir string) (bool, error) {
	d, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if len(names) > 0 {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return true, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Close releases the index file handle. The store must not be used after.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		return nil
	}
	err := s.index.Close()
	s.index = nil
	if err != nil {
		return fmt.Errorf("close receipt index: %w", err)
	}
	return nil
}

// path is where the receipt with id lives: sha256-<hex>.json, since a colon
// is not portable in a file name.
func (s *Store) path(id string) (string, error) {
	hexDigits, ok := canon.DigestHex(id)
	if !ok {
		return "", refuse(errcode.ReceiptIDInvalid, fmt.Sprintf("%q is not a receipt id (sha256:<64 lowercase hex>)", id), nil)
	}
	return filepath.Join(s.dir, "sha256-"+hexDigits+".json"), nil
}

// readRaw returns a stored receipt's bytes exactly as on disk.
func (s *Store) readRaw(id string) ([]byte, error) {
	p, err := s.path(id)
	if err != nil {
		return nil, err
	}
	s.reads.Add(1)
	data, err := readFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, refuse(errcode.ReceiptNotFound, fmt.Sprintf("receipt %s is not in %s", id, s.dir), err)
	}
	if errors.Is(err, errNotRegular) {
		return nil, refuse(errcode.ReceiptFileUnsafe, fmt.Sprintf("receipt %s in %s is a symbolic link or not a regular file, so it is not read; a receipt is a regular file inside the store", id, s.dir), err)
	}
	if err != nil {
		// Past the size bound, or an I/O failure: the receipt cannot be
		// read, which a caller reports as it reports a missing one.
		return nil, refuse(errcode.ReceiptUnreadable, fmt.Sprintf("receipt %s in %s cannot be read: %v", id, s.dir, err), err)
	}
	return data, nil
}

// Get returns a stored receipt and its bytes as stored. It only decodes the
// file; Verify is what proves it.
func (s *Store) Get(id string) (*Receipt, []byte, error) {
	data, err := s.readRaw(id)
	if err != nil {
		return nil, nil, err
	}
	var r Receipt
	if err := decodeStrict(data, &r); err != nil {
		return nil, nil, refuse(errcode.ReceiptMalformed, fmt.Sprintf("stored receipt %s is not a runx.receipt.v1 document", id), err)
	}
	return &r, data, nil
}

// Put stores a receipt that is not the root of its tree. canonical is the
// receipt's canonical bytes as Seal returned them. Putting the same bytes
// again is a no-op; different bytes under an id already stored are refused
// with CodeConflict, since two signed bodies under one id are ambiguous.
//
// Put does not fsync: a run's receipts reach disk when its root is put.
func (s *Store) Put(r *Receipt, canonical []byte) error {
	return s.put(r, canonical, false)
}

// PutRoot stores the root receipt of a run's tree and makes the tree durable:
// the store's earlier writes are flushed first, so the root never reaches
// disk before the children it commits, then the root file, the index and the
// directory are flushed (on Linux by one syncfs(2), elsewhere by an fsync
// each) before PutRoot returns.
func (s *Store) PutRoot(r *Receipt, canonical []byte) error {
	return s.put(r, canonical, true)
}

func (s *Store) put(r *Receipt, canonical []byte, root bool) error {
	p, err := s.checkPut(r, canonical)
	if err != nil {
		return err
	}
	if root {
		if err := syncStore(s.dir); err != nil {
			return fmt.Errorf("flush receipt store before root %s: %w", r.ID, err)
		}
	}
	// Where one syncfs(2) makes the whole store durable, the root file,
	// its index line and its directory entry are flushed by one more after
	// they are written, instead of three fsyncs; elsewhere each is fsynced.
	each := root && !syncsStore
	created, err := writeExclusive(p, canonical, each)
	if err != nil {
		return fmt.Errorf("store receipt %s: %w", r.ID, err)
	}
	if !created {
		if err := s.sameBytes(p, r.ID, canonical); err != nil {
			return err
		}
		if !root {
			s.remember(LoggedFile{Name: filepath.Base(p), Bytes: canonical})
		}
		return nil
	}
	if !root && s.logging() {
		return s.putLogged(r, p, canonical)
	}
	if err := s.appendIndex(entryOf(r, root), each); err != nil {
		// Unindexed, the file would turn a retry into a silent no-op.
		// Nothing can have committed it yet, so taking it back keeps the
		// store append-only in every sense a reader can see.
		os.Remove(p)
		return err
	}
	switch {
	case root && syncsStore:
		if err := syncStore(s.dir); err != nil {
			return fmt.Errorf("sync receipt store after root %s: %w", r.ID, err)
		}
	case root:
		if err := atomicfile.Sync(s.dir); err != nil {
			return fmt.Errorf("sync receipt store: %w", err)
		}
	}
	return nil
}

// checkPut refuses what cannot be put and returns where r goes.
func (s *Store) checkPut(r *Receipt, canonical []byte) (string, error) {
	if r == nil || len(canonical) == 0 {
		return "", refuse(errcode.ReceiptMalformed, "put needs a sealed receipt and its canonical bytes", nil)
	}
	p, err := s.path(r.ID)
	if err != nil {
		return "", err
	}
	// A cheap guard against a caller pairing one receipt with another's
	// bytes, which would file them under the wrong name and index line.
	if !bytes.Contains(canonical, []byte(`,"id":"`+r.ID+`","schema":`)) {
		return "", refuse(errcode.ReceiptMalformed, fmt.Sprintf("the bytes given are not receipt %s; pass the bytes Seal returned with it", r.ID), nil)
	}
	return p, nil
}

// sameBytes accepts putting a stored receipt again only with its bytes.
func (s *Store) sameBytes(p, id string, canonical []byte) error {
	existing, err := readFile(p)
	if err != nil {
		return fmt.Errorf("store receipt %s: %w", id, err)
	}
	if !bytes.Equal(existing, canonical) {
		return refuse(errcode.ReceiptConflict, fmt.Sprintf("%s already holds different bytes for receipt %s; two signed bodies under one id are ambiguous, so the stored one is kept", s.dir, id), nil)
	}
	return nil
}
