package pkg

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// A package's listing and its small files' bytes are remembered under
// their stamps (digestcache.go), so a server loading the same package for
// every call makes one lstat per entry instead of reading its directories
// and files again, and every load still sees an edit made since the last:
// adding, removing or renaming an entry moves its directory's change time,
// writing a file moves the file's, and anything stamped within the racy
// window is never remembered.

// TreeEntry is one entry below a package directory.
type TreeEntry struct {
	Rel   string      // slash-separated, relative to the package directory
	Path  string      // the package directory joined with Rel
	Type  fs.FileMode // the entry's type bits: 0 for a regular file
	stamp fileStamp
}

// treeSnapshot is one remembered listing: the root's stamp, every entry
// with its own, and the package digest once computed over them.
type treeSnapshot struct {
	root    fileStamp
	entries []TreeEntry
	digest  atomic.Pointer[string]
	// kept is set on a snapshot remembered in trees; only those carry
	// derived values, since a fresh listing is made on every call otherwise.
	kept bool
	// derived holds what was computed from this listing's files (a loaded
	// package, a package's module sources), gone with the snapshot when
	// anything in the tree changes (treederive.go).
	derived sync.Map
}

var trees sync.Map // package directory -> *treeSnapshot

// skippedDir reports whether the walk lists a directory without
// descending into it: version control and runx's own state change without
// the package changing.
func skippedDir(name string) bool { return name == ".git" || name == ".runx" }

// ListTree lists every entry below dir in walk order (each directory's
// entries sorted by name), not descending into a .git or .runx below it.
// Callers apply their own rules to symbolic links and other types.
func ListTree(dir string) ([]TreeEntry, error) {
	snap, err := listTree(dir)
	if err != nil {
		return nil, err
	}
	return snap.entries, nil
}

// listTree is ListTree's snapshot, served from trees while the root's
// stamp and every entry's is unchanged.
func listTree(dir string) (*treeSnapshot, error) {
	if v, ok := trees.Load(dir); ok {
		snap := v.(*treeSnapshot)
		if snap.valid(dir) {
			return snap, nil
		}
		trees.Delete(dir)
	}
	// Each directory is stamped before it is read: an entry added after
	// the read moves the stamp, so the snapshot is never matched again.
	root, rootOK := stampOf(dir)
	snap := &treeSnapshot{root: root}
	keep := rootOK && root.Settled(racyWindow)
	var walk func(abs, rel string) error
	walk = func(abs, rel string) error {
		des, err := os.ReadDir(abs)
		if err != nil {
			return err
		}
		for _, d := range des {
			e := TreeEntry{Rel: d.Name(), Path: filepath.Join(abs, d.Name()), Type: d.Type()}
			if rel != "" {
				e.Rel = rel + "/" + d.Name()
			}
			info, err := os.Lstat(e.Path)
			if err != nil {
				return err
			}
			st, ok := stampOfInfo(info)
			keep = keep && ok && st.Settled(racyWindow)
			e.stamp, e.Type = st, info.Mode().Type()
			snap.entries = append(snap.entries, e)
			if e.Type.IsDir() && !skippedDir(d.Name()) {
				if err := walk(e.Path, e.Rel); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(dir, ""); err != nil {
		return nil, err
	}
	if keep {
		snap.kept = true
		trees.Store(dir, snap)
	}
	return snap, nil
}

// valid reports whether the root and every entry still have the stamps
// the snapshot was taken with.
func (s *treeSnapshot) valid(dir string) bool {
	if st, ok := stampOf(dir); !ok || st != s.root {
		return false
	}
	for _, e := range s.entries {
		if st, ok := stampOf(e.Path); !ok || st != e.stamp {
			return false
		}
	}
	return true
}

// contentMax is the largest file whose bytes are remembered.
const contentMax = 1 << 20

type contentEntry struct {
	stamp fileStamp
	text  string
}

var fileContents sync.Map // path -> contentEntry

// ReadFileCached reads a package file (it must not be a symbolic link:
// the caller checked), served from the bytes last read while its stamp is
// unchanged. The result is the caller's own copy. A file over limit bytes
// is refused with ErrFileOverLimit, without reading it.
func ReadFileCached(path string, limit int64) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	return readStamped(path, info, limit)
}

// ErrFileOverLimit is a file larger than its reader's ceiling.
var ErrFileOverLimit = errors.New("file over its size ceiling")

// readStamped is ReadFileCached given the Lstat already made, which the
// bytes read after it are remembered under. It reads at most limit+1 bytes,
// so a file that grew after the Lstat is refused, not read whole.
func readStamped(path string, info fs.FileInfo, limit int64) ([]byte, error) {
	if info.Size() > limit {
		return nil, ErrFileOverLimit
	}
	st, ok := stampOfInfo(info)
	if ok {
		if v, hit := fileContents.Load(path); hit && v.(contentEntry).stamp == st {
			return []byte(v.(contentEntry).text), nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, ErrFileOverLimit
	}
	if ok && st.Settled(racyWindow) && len(raw) <= contentMax && int64(len(raw)) == st.Size() {
		fileContents.Store(path, contentEntry{stamp: st, text: string(raw)})
	}
	return raw, nil
}
