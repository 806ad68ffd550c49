package run

import (
	"context"

	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/readmodel"
)

// TrustedKeys is the key set verification trusts: the runx home's own key
// and every key under <home>/keys/trusted.
func (k *Kernel) TrustedKeys() (receipt.KeySet, error) {
	keys, err := receipt.LoadKeySet(k.Options.HomeDir)
	if err != nil {
		return keys, err
	}
	keys.Add(k.engine.Signer.PublicKey())
	return keys, nil
}

// Verify verifies the tree a receipt belongs to, under the trusted keys
// (readmodel.Verify).
func (k *Kernel) Verify(ctx context.Context, id string) (receipt.Report, error) {
	keys, err := k.TrustedKeys()
	if err != nil {
		return receipt.Report{}, err
	}
	return readmodel.Verify(ctx, k.store, keys, id)
}

// VerifyTarget is the receipt `runx verify <id>` checks
// (readmodel.VerifyTarget).
func (k *Kernel) VerifyTarget(ctx context.Context, id string) (string, error) {
	return readmodel.VerifyTarget(ctx, k.store, k.journal, id)
}

// RunHistory lists the sealed runs in the receipt store, oldest first.
func (k *Kernel) RunHistory() ([]receipt.IndexEntry, error) { return readmodel.RunHistory(k.store) }

// OpenRun is a root run that has not sealed (readmodel.OpenRun).
type OpenRun = readmodel.OpenRun

// OpenRuns lists the root runs that have not sealed, oldest first
// (readmodel.OpenRuns).
func (k *Kernel) OpenRuns(ctx context.Context) ([]OpenRun, error) {
	return readmodel.OpenRuns(ctx, k.journal)
}
