package readmodel

import (
	"context"
	"errors"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/errcode"
)

// Verify verifies the tree a receipt belongs to: for a child receipt, the
// whole tree of the root that commits it (the report's receipt_id), so a
// child is never shown as verified inside a tree that is not.
func Verify(ctx context.Context, store *receipt.Store, keys receipt.KeySet, id string) (receipt.Report, error) {
	if _, _, err := store.Get(id); err != nil {
		// Verify reports a receipt that is missing or unreadable.
		return receipt.Verify(ctx, store, id, keys, receipt.Limits{}), nil
	}
	root, err := store.TreeOf(ctx, id)
	if err != nil {
		return receipt.Report{}, err
	}
	return receipt.Verify(ctx, store, root, keys, receipt.Limits{}), nil
}

// VerifyTarget is the receipt `runx verify <id>` checks: id itself when it
// names a receipt, the run's receipt when it names a sealed run (from the
// run records, when there are any, else the receipt store's index of root
// runs). A run that has not sealed is refused, naming its state and what
// to pass. Any other id is given back as it is, for Verify to report it
// missing.
func VerifyTarget(ctx context.Context, store *receipt.Store, j *journal.Journal, id string) (string, error) {
	if _, _, err := store.Get(id); err == nil {
		return id, nil
	}
	if j != nil {
		r, err := j.GetRun(ctx, id)
		switch {
		case err == nil && r.State == journal.StateSealed && r.ReceiptID != "":
			return r.ReceiptID, nil
		case err == nil:
			return "", contract.Errorf(errcode.VerifyRunNotSealed, "run %s is %s and has no receipt until it seals: continue it with runx resume %s, then verify the receipt it seals with runx verify <receipt_id> (or runx verify %s)", id, r.State, id, id)
		case !errors.Is(err, journal.ErrRunNotFound):
			return "", err
		}
	}
	runs, err := RunHistory(store)
	if err != nil {
		return "", err
	}
	for _, e := range runs {
		if e.RunID == id {
			return e.ReceiptID, nil
		}
	}
	return id, nil
}

// RunHistory lists the sealed runs in the receipt store, oldest first.
func RunHistory(store *receipt.Store) ([]receipt.IndexEntry, error) {
	all, err := store.Index()
	if err != nil {
		return nil, err
	}
	runs := make([]receipt.IndexEntry, 0, len(all))
	for _, e := range all {
		if e.Root {
			runs = append(runs, e)
		}
	}
	return runs, nil
}

// OpenRun is a root run that has not sealed: paused on a request, stopped by
// a signal, or running.
type OpenRun struct {
	RunID     string           `json:"run_id"`
	SkillName string           `json:"skill_name"`
	Method    string           `json:"method"`
	State     journal.RunState `json:"state"`
	UpdatedAt string           `json:"updated_at"`
}

// OpenRuns lists the root runs that have not sealed, oldest first, so history
// shows a paused or stopped run as what it is rather than leaving it out.
func OpenRuns(ctx context.Context, j *journal.Journal) ([]OpenRun, error) {
	roots, err := j.Children(ctx, "")
	if err != nil {
		return nil, err
	}
	out := []OpenRun{}
	for _, r := range roots {
		if r.State != journal.StateSealed {
			out = append(out, OpenRun{RunID: r.RunID, SkillName: r.SkillName, Method: r.Method, State: r.State, UpdatedAt: r.UpdatedAt})
		}
	}
	return out, nil
}
