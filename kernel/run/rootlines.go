package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
)

// storeKey names a receipt store in the journal's pending root lines: its
// absolute directory, so processes started from other directories agree.
func storeKey(s *receipt.Store) string {
	if abs, err := filepath.Abs(s.Dir()); err == nil {
		return abs
	}
	return s.Dir()
}

// repairIndex appends the index lines of sealed root runs that a power cut
// lost (their seal is durable, their line was not yet: sealRun,
// receipt.Store.PutRootIndexLater), before anything reads or appends to
// the index. It reads one small table and a line or two of the index.
func repairIndex(ctx context.Context, j *journal.Journal, s *receipt.Store) error {
	rows, err := j.ReceiptLog().PendingRootLines(ctx, storeKey(s))
	if err != nil || len(rows) == 0 {
		return err
	}
	pending := make([]receipt.PendingRoot, len(rows))
	for i, r := range rows {
		pending[i] = receipt.PendingRoot{ReceiptID: r.ReceiptID, Mark: receipt.IndexMark{Flushed: r.Line.Flushed, End: r.Line.End}}
	}
	if _, err := s.RepairIndex(pending); err != nil {
		return fmt.Errorf("repair receipt index of %s: %w", s.Dir(), err)
	}
	return nil
}

// reindexTorn indexes again the receipt whose line a torn index tail cut,
// when the cut bytes name it and its file is in the store: as a root when
// the run records say it seals a run with no parent. A receipt the cut
// bytes do not name is left to the repairs that follow (repairIndex, the
// receipt file log), which restore what they still hold.
func reindexTorn(ctx context.Context, j *journal.Journal, s *receipt.Store, torn *receipt.TornTail) error {
	if torn.Ended || torn.ReceiptID == "" {
		return nil
	}
	r, _, err := s.Get(torn.ReceiptID)
	if errors.Is(err, receipt.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	root := false
	if rec, err := j.GetRun(ctx, r.Body.RunID); err == nil {
		root = rec.ParentRunID == "" && rec.ReceiptID == r.ID
	}
	return s.Reindex(r.ID, root)
}
