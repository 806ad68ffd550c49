package run

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
)

// TrustedKeys is the key set verification trusts: the runx home's own key
// and every key under <home>/keys/trusted.
func (k *Kernel) TrustedKeys() (receipt.KeySet, error) {
	keys, err := receipt.LoadKeySet(k.Options.HomeDir)
	if err != nil {
		return keys, err
	}
	keys.Add(k.Engine.Signer.PublicKey())
	return keys, nil
}

// Verify verifies a receipt and the tree below it.
func (k *Kernel) Verify(ctx context.Context, id string) (receipt.Report, error) {
	keys, err := k.TrustedKeys()
	if err != nil {
		return receipt.Report{}, err
	}
	return receipt.Verify(ctx, k.Store, id, keys, receipt.Limits{}), nil
}

// RunHistory lists the sealed runs in the receipt store, oldest first.
func (k *Kernel) RunHistory() ([]receipt.IndexEntry, error) {
	all, err := k.Store.Index()
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

// RunRead is runx.run_read.v1 as far as receipts alone can tell it: a sealed
// run's root and step receipts.
type RunRead struct {
	Schema    string               `json:"schema"`
	RunID     string               `json:"run_id"`
	State     string               `json:"state"`
	Outcome   string               `json:"outcome,omitempty"`
	SkillName string               `json:"skill_name,omitempty"`
	ReceiptID string               `json:"receipt_id,omitempty"`
	Receipts  []receipt.IndexEntry `json:"receipts"`
}

// ReadRun reads one run from the receipt store.
func (k *Kernel) ReadRun(runID string) (*RunRead, error) {
	entries, err := k.Store.RunReceipts(runID)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, contract.Errorf("run_not_found", "no run %s in the receipt store %s", runID, k.Store.Dir())
	}
	out := &RunRead{Schema: "runx.run_read.v1", RunID: runID, State: "sealed", Receipts: entries}
	for _, e := range entries {
		if e.Root {
			out.Outcome, out.SkillName, out.ReceiptID = e.Outcome, e.SkillName, e.ReceiptID
		}
	}
	return out, nil
}
