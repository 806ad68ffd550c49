package journal

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// Seal records the run's end and the envelope it sealed with.
func (j *Journal) Seal(ctx context.Context, runID string, outcome seal.Outcome, reason seal.Reason, receiptID string, envelope json.RawMessage) error {
	return j.SealIndexed(ctx, runID, outcome, reason, receiptID, envelope, RootLine{})
}

// SealIndexed is Seal for a root run whose receipt's index line the store
// appended without flushing it: line, recorded in the same commit, is what
// PendingRootLines returns so a power cut that lost the line can be
// repaired (rootlines.go). A zero line records nothing more than Seal.
//
// steps are settled steps of the run not recorded yet: each is recorded
// first, exactly as RecordStep would, in the seal's own transaction (an
// effect-free run's last step, docs/decisions/journal.md, "One transaction for the
// last step and the seal").
func (j *Journal) SealIndexed(ctx context.Context, runID string, outcome seal.Outcome, reason seal.Reason, receiptID string, envelope json.RawMessage, line RootLine, steps ...*Step) error {
	ctx = undeferred(ctx)
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		for _, s := range steps {
			if err := j.recordStep(ctx, tx, s, now); err != nil {
				return err
			}
		}
		if err := j.ReceiptLog().recordRootLine(ctx, tx, runID, receiptID, line); err != nil {
			return err
		}
		from := sources[StateSealed]
		res, err := j.exec(ctx, tx, sqlSealRun,
			string(StateSealed), string(outcome), string(reason), receiptID, j.text(envelope), runID, from[0], from[1], from[2], from[3])
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return j.refusedTransition(ctx, tx, runID, StateSealed)
		}
		if _, err := j.exec(ctx, tx, sqlDropOpenAsks, runID, string(RequestOpen)); err != nil {
			return err
		}
		if err := j.touch(ctx, tx, runID, "", now); err != nil {
			return err
		}
		return j.appendEvent(ctx, tx, runID, "run", "run.sealed", map[string]any{"outcome": outcome, "seal_reason": reason, "receipt_id": receiptID}, now)
	})
}
