package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// A crash or a power cut can leave the index ending in part of a line: a
// write cut short, or one whose newline never reached the disk. Readers
// pass over such a tail (scanIndex), but the next line appended would be
// glued to it, and the line they make together, in the middle of the
// index, is refused as malformed by every later read: one torn write would
// break history and every lookup for good. So every append first looks at
// the index's last byte, under the index's lock, and repairs a tail that is
// not a whole line the way a database repairs a write-ahead log's torn
// tail: an entry whole but for its newline is ended; anything else is cut
// off and its bytes kept beside the index (TornSuffix) for a person to
// read. What the cut line described is restored from the run records'
// receipt file log where they still hold it (kernel/run, openFileLog and
// repairIndex), which run after RecoverTail at open.

// TornSuffix names the file a torn tail's bytes are kept in:
// index.jsonl.torn-<offset>, offset being where the cut line began.
const TornSuffix = ".torn-"

// TornTail says what RecoverTail found at the index's end.
type TornTail struct {
	// Offset is where the partial line began; Bytes is how long it was.
	Offset int64
	Bytes  int
	// Ended is set when the partial line was a whole entry missing only
	// its newline, which was written; otherwise the line was cut off and
	// kept in SetAside.
	Ended    bool
	SetAside string
	// ReceiptID is the receipt the cut line was for, when the bytes kept
	// name it whole (the id is an index line's first field), so a caller
	// that knows whether it was a root can index it again (Reindex).
	ReceiptID string
}

// tornID is the receipt id a partial index line begins with, if whole.
func tornID(tail []byte) string {
	const prefix = `{"receipt_id":"`
	if !bytes.HasPrefix(tail, []byte(prefix)) {
		return ""
	}
	rest := tail[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	id := string(rest[:end])
	if _, ok := canon.DigestHex(id); !ok {
		return ""
	}
	return id
}

// Reindex appends the index line of a stored receipt whose line a torn
// tail cut (RecoverTail named it): the receipt is read and checked to be
// the one named, and its line is appended unless the index already holds
// it. root says whether it roots its tree, which only the caller's run
// records know.
func (s *Store) Reindex(id string, root bool) error {
	r, _, err := s.Get(id)
	if err != nil {
		return err
	}
	if r.ID != id {
		return refuse(errcode.ReceiptMalformed, fmt.Sprintf("stored receipt %s names itself %s", id, r.ID), nil)
	}
	line, err := indexLine(entryOf(r, root))
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, _, err := s.lockTarget("index a receipt again")
	if err != nil {
		return err
	}
	defer unlockTarget(f)
	have, err := linesFrom(f, 0)
	if err != nil {
		return err
	}
	if have[string(bytes.TrimSuffix(line, []byte("\n")))] {
		return nil
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("append receipt index: %w", err)
	}
	return f.Sync()
}

// RecoverTail repairs a torn tail of the index under its lock, so what
// reads or appends next sees only whole lines. It reports what it found;
// a nil TornTail means the index ended in a whole line.
func (s *Store) RecoverTail() (*TornTail, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, _, torn, err := s.lockTargetTorn("recover its tail")
	if err != nil {
		return nil, err
	}
	unlockTarget(f)
	return torn, nil
}

// wholeTail makes f, the index held under its lock and size bytes long,
// end in a whole line, and returns its length after and what it repaired.
// f was opened to read and append.
func (s *Store) wholeTail(f *os.File, size int64) (int64, *TornTail, error) {
	if size == 0 {
		return 0, nil, nil
	}
	// The common case costs one byte read: the index ends in a newline.
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return size, nil, fmt.Errorf("read receipt index tail: %w", err)
	}
	if last[0] == '\n' {
		return size, nil, nil
	}
	n := min(size, maxIndexLine+1)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil {
		return size, nil, fmt.Errorf("read receipt index tail: %w", err)
	}
	nl := bytes.LastIndexByte(buf, '\n')
	if nl < 0 && size > n {
		return size, nil, refuse(errcode.ReceiptIndexMalformed, fmt.Sprintf("%s ends in a line longer than %d bytes; move it aside to start a new store", s.indexPath, maxIndexLine), nil)
	}
	tail := buf[nl+1:]
	torn := &TornTail{Offset: size - int64(len(tail)), Bytes: len(tail), ReceiptID: tornID(tail)}
	var e IndexEntry
	if tail[0] != 0 && json.Unmarshal(tail, &e) == nil && e.ReceiptID != "" {
		if _, err := f.Write([]byte("\n")); err != nil {
			return size, nil, fmt.Errorf("end the receipt index's last line: %w", err)
		}
		torn.Ended = true
		return size + 1, torn, f.Sync()
	}
	if len(bytes.Trim(tail, "\x00")) > 0 {
		aside := s.indexPath + TornSuffix + strconv.FormatInt(torn.Offset, 10)
		if err := os.WriteFile(aside, tail, 0o600); err != nil {
			return size, nil, fmt.Errorf("set aside the receipt index's torn tail: %w", err)
		}
		torn.SetAside = filepath.Base(aside)
	}
	if err := f.Truncate(torn.Offset); err != nil {
		return size, nil, fmt.Errorf("cut the receipt index's torn tail: %w", err)
	}
	return torn.Offset, torn, f.Sync()
}
