package receipt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// IndexMark says where a root's index line went when PutRootIndexLater put
// it: Flushed is the length of the index that was durable before the line
// was written (every byte below it was flushed with the root), End the
// offset just past the line. The zero mark means the line is durable
// already and nothing need be repaired.
type IndexMark struct {
	Flushed int64
	End     int64
}

// PutRootIndexLater is PutRoot with one flush instead of two, for a caller
// that records the mark it returns in a durable transaction of its own (the
// journal's seal). The children, their index lines and the root file are
// made durable together by one syncfs(2), with the root not yet indexed, so
// no reader can find a root whose children a power cut lost; then the
// root's index line is appended without a flush of its own. The caller's
// commit makes it durable in practice; if a power cut loses it anyway,
// RepairIndex, given the marks the caller recorded, appends it again. Where
// one syscall cannot flush the store, this is PutRoot and the mark is zero.
func (s *Store) PutRootIndexLater(r *Receipt, canonical []byte) (IndexMark, error) {
	if !syncsStore {
		return IndexMark{}, s.PutRoot(r, canonical)
	}
	p, err := s.checkPut(r, canonical)
	if err != nil {
		return IndexMark{}, err
	}
	created, err := writeExclusive(p, canonical, false)
	if err != nil {
		return IndexMark{}, fmt.Errorf("store receipt %s: %w", r.ID, err)
	}
	if !created {
		if err := s.sameBytes(p, r.ID, canonical); err != nil {
			return IndexMark{}, err
		}
	}
	flushed, err := s.indexSize()
	if err != nil {
		return IndexMark{}, err
	}
	if err := syncStore(s.dir); err != nil {
		return IndexMark{}, fmt.Errorf("flush receipt store with root %s: %w", r.ID, err)
	}
	if !created {
		// A driver that stopped after writing this root may or may not
		// have indexed it: index it unless it is.
		found, err := s.indexesRoot(r.ID)
		if err != nil || found {
			return IndexMark{}, err
		}
	}
	end, err := s.appendIndexAt(entryOf(r, true))
	if err != nil {
		// The root file stays: it is durable, unindexed, and no reader
		// trusts an unindexed root.
		return IndexMark{}, err
	}
	return IndexMark{Flushed: flushed, End: end}, nil
}

// PendingRoot is a root whose index line a caller recorded with its mark.
type PendingRoot struct {
	ReceiptID string
	Mark      IndexMark
}

// RepairIndex appends the index line of each pending root that a power cut
// lost, in the order given, and returns the ids it appended. A root counts
// as indexed when its line is where its mark says, or anywhere in the part
// of the index no mark has seen flushed; a root whose file is not in this
// store is skipped (the store was moved aside since). Concurrent repairs,
// in this process or another, take turns under a lock on the index, so a
// line is appended once; appended lines are flushed before it returns.
func (s *Store) RepairIndex(pending []PendingRoot) ([]string, error) {
	if len(pending) == 0 {
		return nil, nil
	}
	// Read-only until a line is missing: a store that needs no repair is
	// read where it cannot be written.
	f, err := s.lockIndex("repair")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var durable int64
	for _, p := range pending {
		durable = max(durable, p.Mark.Flushed)
	}
	var tail map[string]bool // root ids indexed at or past durable, read at most once
	app := &indexAppender{index: f, op: "repair"}
	defer app.finish()
	var repaired []string
	for _, p := range pending {
		r, _, err := s.Get(p.ReceiptID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return repaired, err
		}
		line, err := indexLine(entryOf(r, true))
		if err != nil {
			return repaired, err
		}
		if p.Mark.End >= int64(len(line)) {
			at := make([]byte, len(line))
			if n, _ := f.ReadAt(at, p.Mark.End-int64(len(line))); n == len(at) && bytes.Equal(at, line) {
				continue
			}
		}
		if tail == nil {
			if tail, err = rootsFrom(f, durable); err != nil {
				return repaired, err
			}
		}
		if tail[r.ID] {
			continue
		}
		if err := app.write(line); err != nil {
			return repaired, err
		}
		tail[r.ID] = true
		repaired = append(repaired, r.ID)
	}
	if err := app.finish(); err != nil {
		return repaired, err
	}
	return repaired, nil
}

// rootsFrom reads the root ids indexed from offset on. A line cut by the
// offset, or one a power cut damaged, is passed over: this only looks for
// lines that are whole.
func rootsFrom(f *os.File, offset int64) (map[string]bool, error) {
	roots := map[string]bool{}
	start := offset
	if offset > 0 {
		start = offset - 1 // to see whether offset starts a line
	}
	r := bufio.NewReader(io.NewSectionReader(f, start, 1<<62))
	if offset > 0 {
		if _, err := r.ReadSlice('\n'); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return roots, nil
		}
	}
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			var e IndexEntry
			if json.Unmarshal(line, &e) == nil && e.Root {
				roots[e.ReceiptID] = true
			}
		}
		if errors.Is(err, io.EOF) {
			return roots, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read receipt index: %w", err)
		}
	}
}

// indexesRoot says whether the index holds a root line for id.
func (s *Store) indexesRoot(id string) (bool, error) {
	found := false
	err := s.scanIndex(func(e IndexEntry) { found = found || (e.Root && e.ReceiptID == id) })
	return found, err
}
