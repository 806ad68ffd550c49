package run

import (
	"context"

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
