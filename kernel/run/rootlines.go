package run

import (
	"context"
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
	rows, err := j.PendingRootLines(ctx, storeKey(s))
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
