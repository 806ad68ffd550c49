package journal

import (
	"context"
	"database/sql"
	"fmt"
)

// RootLine is where a sealed root run's receipt index line went in the
// receipt store at Store (its directory): Flushed is the length of the index
// that store flushed before the line was written, End the offset just past
// the line (receipt.IndexMark). The journal keeps it until a later seal's
// flush covers the line, so a power cut that lost the line, with the seal
// durable, can be repaired when the store is next opened.
type RootLine struct {
	Store   string
	Flushed int64
	End     int64
}

// PendingRoot is a sealed root run whose index line no later flush is known
// to cover.
type PendingRoot struct {
	RunID     string
	ReceiptID string
	Line      RootLine
}

// recordRootLine, in a seal's transaction, records line and forgets the
// lines of the same store that its flush covered: every byte of the index
// below line.Flushed was durable before this seal commits.
func (l ReceiptLog) recordRootLine(ctx context.Context, tx *sql.Tx, runID, receiptID string, line RootLine) error {
	j := l.j
	if line.Store == "" {
		return nil
	}
	if _, err := j.exec(ctx, tx, sqlPruneRootLines, line.Store, line.Flushed); err != nil {
		return err
	}
	_, err := j.exec(ctx, tx, sqlAddRootLine, runID, line.Store, receiptID, line.Flushed, line.End)
	return err
}

// PendingRootLines lists the roots of store whose index lines no recorded
// flush covers, in the order they were written.
func (l ReceiptLog) PendingRootLines(ctx context.Context, store string) ([]PendingRoot, error) {
	rows, err := l.j.db.QueryContext(ctx, `SELECT run_id, receipt_id, flushed, line_end FROM root_lines WHERE store = ? ORDER BY line_end, run_id`, store)
	if err != nil {
		return nil, fmt.Errorf("read pending root lines: %w", err)
	}
	defer rows.Close()
	var out []PendingRoot
	for rows.Next() {
		p := PendingRoot{Line: RootLine{Store: store}}
		if err := rows.Scan(&p.RunID, &p.ReceiptID, &p.Line.Flushed, &p.Line.End); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
