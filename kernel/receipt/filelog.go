package receipt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/runxhq/runx/sdk/atomicfile"
)

// LoggedFile is a receipt file written without a flush, as a caller's
// write-ahead log records it: Name is the file's name in the store, Bytes
// its exact content, Line its index line, and Hint the index's length before
// the line was written (the line is at or past it). A file found already
// stored is logged with no Line: its line, if any, was written before.
type LoggedFile struct {
	Name  string
	Bytes []byte
	Line  []byte
	Hint  int64
}

// fileLog holds the files a store wrote since its caller last logged them.
type fileLog struct {
	mu      sync.Mutex
	on      bool
	seq     uint64
	pending map[string]loggedAt
}

type loggedAt struct {
	f   LoggedFile
	seq uint64
}

// LogWrites makes every later Put and PutRootLogged remember the file it
// wrote until Logged says a durable log holds it. It reports whether the
// store can rely on such a log: only where syncfs(2) can later flush the
// store in one call (Sync), so elsewhere PutRoot's flushes stay.
func (s *Store) LogWrites() bool {
	if !syncsStore {
		return false
	}
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	s.log.on = true
	if s.log.pending == nil {
		s.log.pending = map[string]loggedAt{}
	}
	return true
}

func (s *Store) remember(f LoggedFile) {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	if !s.log.on {
		return
	}
	s.log.seq++
	s.log.pending[f.Name] = loggedAt{f: f, seq: s.log.seq}
}

// Unlogged returns the files written and not yet logged, oldest first.
func (s *Store) Unlogged() []LoggedFile {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	if len(s.log.pending) == 0 {
		return nil
	}
	all := make([]loggedAt, 0, len(s.log.pending))
	for _, p := range s.log.pending {
		all = append(all, p)
	}
	sortBySeq(all)
	out := make([]LoggedFile, len(all))
	for i, p := range all {
		out[i] = p.f
	}
	return out
}

func sortBySeq(all []loggedAt) {
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].seq < all[j-1].seq; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
}

// Logged forgets files a durable log now holds. A file written again since
// (the same name, a later write) is kept.
func (s *Store) Logged(files []LoggedFile) {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	for _, f := range files {
		if p, ok := s.log.pending[f.Name]; ok && bytes.Equal(p.f.Bytes, f.Bytes) && bytes.Equal(p.f.Line, f.Line) {
			delete(s.log.pending, f.Name)
		}
	}
}

// Identity names this store's index file (device and inode). A write-ahead
// log records it, so a store moved aside, with a new one made in its
// place, is never given the old store's files. The index is made durable
// when the store is created (Open), so a power cut cannot change it.
func (s *Store) Identity() (string, error) {
	return fileIdentity(filepath.Join(s.dir, IndexFile))
}

// PutRootLogged writes the root receipt of a run's tree with no flush and
// no index line, and remembers it for the caller's log (LogWrites must be
// on). The caller commits its log, then calls IndexRoot with the hint
// returned: the root is indexed only once the log can restore its tree.
func (s *Store) PutRootLogged(r *Receipt, canonical []byte) (int64, error) {
	p, err := s.checkPut(r, canonical)
	if err != nil {
		return 0, err
	}
	line, err := indexLine(entryOf(r, true))
	if err != nil {
		return 0, err
	}
	created, err := writeExclusive(p, canonical, false)
	if err != nil {
		return 0, fmt.Errorf("store receipt %s: %w", r.ID, err)
	}
	if !created {
		if err := s.sameBytes(p, r.ID, canonical); err != nil {
			return 0, err
		}
		// A driver that stopped after writing this root may have indexed
		// it already: then only the file is logged.
		found, err := s.indexesRoot(r.ID)
		if err != nil {
			return 0, err
		}
		if found {
			s.remember(LoggedFile{Name: filepath.Base(p), Bytes: canonical})
			return -1, nil
		}
	}
	hint, err := s.indexSize()
	if err != nil {
		return 0, err
	}
	s.remember(LoggedFile{Name: filepath.Base(p), Bytes: canonical, Line: line, Hint: hint})
	return hint, nil
}

// IndexRoot appends r's root index line unless it is already in the index
// at or past hint (a repair in another process may have appended it),
// under the lock repairs take, without a flush: the log restores it. A
// negative hint (PutRootLogged found the root indexed) appends nothing.
func (s *Store) IndexRoot(r *Receipt, hint int64) error {
	if hint < 0 {
		return nil
	}
	line, err := indexLine(entryOf(r, true))
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, size, err := s.lockTarget("index a root")
	if err != nil {
		return err
	}
	defer unlockTarget(f)
	// Only a restore, which holds the lock too, can have appended this
	// line, so the length taken under the lock shows whether there is
	// anything to look through; in a session of sequential calls there
	// is not, and nothing is read.
	if size > hint {
		have, err := linesFrom(f, hint)
		if err != nil {
			return err
		}
		if have[string(bytes.TrimSuffix(line, []byte("\n")))] {
			return nil
		}
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("append receipt index: %w", err)
	}
	return nil
}

// Restore makes the store hold every logged file as logged, as a power cut
// may have left it: a file missing, or holding other bytes (torn), is
// written again whole (a temporary file, fsynced, renamed over, the
// directory fsynced); then each index line missing past the smallest hint
// is appended, in the order given, and the index fsynced. Restoring twice
// changes nothing. It runs under the index's lock, so concurrent restores
// and IndexRoot append a line once. It returns the names it rewrote or
// re-indexed.
func (s *Store) Restore(files []LoggedFile) ([]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	f, err := s.lockIndex("restore")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var fixed []string
	rewrote := false
	hint := int64(-1)
	for _, lf := range files {
		if len(lf.Line) > 0 && (hint < 0 || lf.Hint < hint) {
			hint = lf.Hint
		}
		if filepath.Base(lf.Name) != lf.Name || lf.Name == IndexFile || len(lf.Bytes) == 0 {
			return fixed, fmt.Errorf("restore receipt store: %q is not a receipt file name", lf.Name)
		}
		p := filepath.Join(s.dir, lf.Name)
		have, err := readFile(p)
		switch {
		case err == nil && bytes.Equal(have, lf.Bytes):
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fixed, fmt.Errorf("restore receipt %s: %w", lf.Name, err)
		}
		if err := writeReplacing(p, lf.Bytes); err != nil {
			return fixed, fmt.Errorf("restore receipt %s: %w", lf.Name, err)
		}
		rewrote = true
		fixed = append(fixed, lf.Name)
	}
	if rewrote {
		if err := atomicfile.Sync(s.dir); err != nil {
			return fixed, fmt.Errorf("sync restored receipt store: %w", err)
		}
	}
	if hint < 0 {
		return fixed, nil
	}
	have, err := linesFrom(f, hint)
	if err != nil {
		return fixed, err
	}
	app := &indexAppender{index: f, op: "restore"}
	defer app.finish()
	for _, lf := range files {
		key := string(bytes.TrimSuffix(lf.Line, []byte("\n")))
		if len(lf.Line) == 0 || have[key] {
			continue
		}
		if !app.opened() && zeroTail(f) {
			// A hole a power cut left at the end: ended as a line of its
			// own, which readers pass over, so the line after it is not
			// read as part of it.
			if err := app.write([]byte("\n")); err != nil {
				return fixed, err
			}
		}
		if err := app.write(lf.Line); err != nil {
			return fixed, err
		}
		have[key] = true
		fixed = append(fixed, lf.Name)
	}
	if err := app.finish(); err != nil {
		return fixed, err
	}
	return fixed, nil
}

// writeReplacing writes data to path through a temporary file made
// durable before it is renamed over path.
func writeReplacing(path string, data []byte) error {
	tmp := path + ".restore"
	os.Remove(tmp)
	if _, err := writeExclusive(tmp, data, true); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Sync makes every write to the store so far durable, with one syncfs(2).
func (s *Store) Sync() error {
	if err := syncStore(s.dir); err != nil {
		return fmt.Errorf("flush receipt store: %w", err)
	}
	return nil
}

// linesFrom reads the whole lines of the index from offset on (each without
// its newline). A line cut by the offset, or damaged by a power cut, is
// passed over, as is a hole of zeros.
func linesFrom(f *os.File, offset int64) (map[string]bool, error) {
	lines := map[string]bool{}
	start := offset
	if offset > 0 {
		start = offset - 1 // to see whether offset starts a line
	}
	r := bufio.NewReader(io.NewSectionReader(f, start, 1<<62))
	if offset > 0 {
		if _, err := r.ReadSlice('\n'); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return lines, nil
		}
	}
	for {
		line, err := readLine(r)
		if err == nil && len(line) > 0 && line[0] != 0 && json.Valid(line) {
			lines[string(line)] = true
		}
		if errors.Is(err, io.EOF) {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read receipt index: %w", err)
		}
	}
}

func (s *Store) logging() bool {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.on
}

// putLogged indexes a child receipt whose file Put just created, and
// remembers both for the log.
func (s *Store) putLogged(r *Receipt, p string, canonical []byte) error {
	line, err := indexLine(entryOf(r, false))
	if err != nil {
		os.Remove(p)
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, hint, err := s.lockTarget("append a line")
	if err != nil {
		os.Remove(p)
		return err
	}
	defer unlockTarget(f)
	if _, err := f.Write(line); err != nil {
		os.Remove(p)
		return fmt.Errorf("append receipt index: %w", err)
	}
	s.remember(LoggedFile{Name: filepath.Base(p), Bytes: canonical, Line: line, Hint: hint})
	return nil
}

// zeroTail says whether the index ends in zeros after its last newline (a
// hole from a power cut), as opposed to a whole line or a torn one.
func zeroTail(f *os.File) bool {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return false
	}
	n := min(info.Size(), maxIndexLine)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, info.Size()-n); err != nil {
		return false
	}
	tail := buf[bytes.LastIndexByte(buf, '\n')+1:]
	return len(tail) > 0 && len(bytes.Trim(tail, "\x00")) == 0
}

// lockIndex opens the index read-only and takes its lock, which every
// process appending or restoring a line holds; closing f releases it.
func (s *Store) lockIndex(purpose string) (*os.File, error) {
	f, err := openPlain(filepath.Join(s.dir, IndexFile))
	if err != nil {
		return nil, fmt.Errorf("open receipt index to %s: %w", purpose, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock receipt index to %s: %w", purpose, err)
	}
	return f, nil
}
