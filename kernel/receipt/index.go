package receipt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/sdk/errcode"
)

// IndexEntry is one line of index.jsonl: enough to list and find receipts
// without opening them. The index is a listing aid; the receipt files are the
// record, and Verify reads only them.
type IndexEntry struct {
	ReceiptID string `json:"receipt_id"`
	Kind      Kind   `json:"kind"`
	RunID     string `json:"run_id"`
	SkillName string `json:"skill_name"`
	// Method is the method the run ran; an entry an older runx wrote
	// has none.
	Method   string       `json:"method,omitempty"`
	Outcome  seal.Outcome `json:"outcome"`
	SealedAt string       `json:"sealed_at"`
	Root     bool         `json:"root"`
}

func entryOf(r *Receipt, root bool) IndexEntry {
	return IndexEntry{
		ReceiptID: r.ID,
		Kind:      r.Body.Kind,
		RunID:     r.Body.RunID,
		SkillName: r.Body.SkillName,
		Method:    r.Body.Method,
		Outcome:   r.Body.Outcome,
		SealedAt:  r.Body.SealedAt,
		Root:      root,
	}
}

// appendIndex writes one line with a single write on an O_APPEND handle,
// under the index's lock, so lines from concurrent writers, in this process
// or another, never interleave, and none is glued to a torn tail.
func (s *Store) appendIndex(e IndexEntry, durable bool) error {
	line, err := indexLine(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, _, err := s.lockTarget("append a line")
	if err != nil {
		return err
	}
	defer unlockTarget(f)
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("append receipt index: %w", err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync receipt index: %w", err)
		}
	}
	return nil
}

// appendIndexAt is appendIndex without a flush, returning the offset just
// past the line: an O_APPEND write leaves the handle's offset there, and
// the store's lock keeps this process's other appends off the handle until
// it is read.
func (s *Store) appendIndexAt(e IndexEntry) (int64, error) {
	line, err := indexLine(e)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, _, err := s.lockTarget("append a line")
	if err != nil {
		return 0, err
	}
	defer unlockTarget(f)
	if _, err := f.Write(line); err != nil {
		return 0, fmt.Errorf("append receipt index: %w", err)
	}
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, fmt.Errorf("append receipt index: %w", err)
	}
	return end, nil
}

// indexSize is the index's length now.
func (s *Store) indexSize() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, size, err := s.appendTarget()
	return size, err
}

// indexLine is e as one line of the index.
func indexLine(e IndexEntry) ([]byte, error) {
	line, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode index entry: %w", err)
	}
	return append(line, '\n'), nil
}

// maxIndexLine bounds one index line; a real one is a few hundred bytes.
const maxIndexLine = 64 << 10

// Index returns every entry in the order written.
func (s *Store) Index() ([]IndexEntry, error) {
	var out []IndexEntry
	err := s.scanIndex(func(e IndexEntry) { out = append(out, e) })
	return out, err
}

// RunReceipts returns the entries of one run, in the order written.
func (s *Store) RunReceipts(runID string) ([]IndexEntry, error) {
	var out []IndexEntry
	err := s.scanIndex(func(e IndexEntry) {
		if e.RunID == runID {
			out = append(out, e)
		}
	})
	return out, err
}

// scanIndex streams the index. A last line with no newline that does not
// parse is a write torn by a crash (or one still in flight) and is skipped;
// any other bad line is refused with CodeIndexMalformed.
func (s *Store) scanIndex(each func(IndexEntry)) error {
	return s.scanIndexNaming(nil, each)
}

// scanIndexNaming is scanIndex over only the lines holding needle (every
// line when needle is nil): a line without it is skipped undecoded, so a
// lookup by id costs a byte search per line, not a JSON decode.
func (s *Store) scanIndexNaming(needle []byte, each func(IndexEntry)) error {
	f, err := os.Open(filepath.Join(s.dir, IndexFile))
	if err != nil {
		return fmt.Errorf("open receipt index: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := readLine(r)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil
		}
		torn := errors.Is(err, io.EOF)
		if err != nil && !torn {
			return fmt.Errorf("read receipt index line %d: %w", n, err)
		}
		if needle != nil && !bytes.Contains(line, needle) {
			if torn {
				return nil
			}
			continue
		}
		if len(line) > 0 && line[0] == 0 {
			// A write a power cut never let reach the disk reads back as
			// zeros: not an entry, and no entry's damage either.
			if torn {
				return nil
			}
			continue
		}
		s.decodes.Add(1)
		var e IndexEntry
		if jerr := json.Unmarshal(line, &e); jerr != nil {
			if torn {
				return nil
			}
			return refuse(errcode.ReceiptIndexMalformed, fmt.Sprintf("%s line %d is not an index entry", filepath.Join(s.dir, IndexFile), n), jerr)
		}
		each(e)
		if torn {
			return nil
		}
	}
}

// readLine returns one line without its newline. io.EOF with a non-empty
// line means the line had no newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxIndexLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxIndexLine)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}
