package testrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract/canon"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
)

// setupAuthority is the test's setup.authority as the run's host-stated
// authority (what --run-authority states), checked as one; a test that
// states none runs with none.
func setupAuthority(tc *pkg.TestCase) ([]byte, error) {
	if tc.Setup == nil || tc.Setup.Authority == nil {
		return nil, nil
	}
	raw, err := canon.Canonical(tc.Setup.Authority)
	if err != nil {
		return nil, fmt.Errorf("setup.authority: %w", err)
	}
	if _, err := run.ParseAuthority(raw); err != nil {
		return nil, fmt.Errorf("setup.authority: %w", err)
	}
	return raw, nil
}

// seedReceipts places the test's setup.receipts in its store, then verifies
// every tree they form under the test's keys: a seed that is missing, not
// a receipt, or whose tree does not verify fails the test before it runs.
func seedReceipts(ctx context.Context, pkgDir string, tc *pkg.TestCase, store *receipt.Store, keys receipt.KeySet) error {
	if tc.Setup == nil || len(tc.Setup.Receipts) == 0 {
		return nil
	}
	seeded := map[string]bool{}
	committed := map[string]bool{}
	var order []string
	for _, rel := range tc.Setup.Receipts {
		raw, err := os.ReadFile(filepath.Join(pkgDir, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("setup.receipts: %s does not exist in the package", rel)
		}
		if err != nil {
			return fmt.Errorf("setup.receipts: %s: %w", rel, err)
		}
		rec, err := receipt.Decode(raw)
		if err != nil {
			return fmt.Errorf("setup.receipts: %s: %w", rel, err)
		}
		if err := store.Put(rec, raw); err != nil {
			return fmt.Errorf("setup.receipts: %s: %w", rel, err)
		}
		if !seeded[rec.ID] {
			order = append(order, rec.ID)
		}
		seeded[rec.ID] = true
		for _, c := range rec.Body.Children {
			committed[c.ReceiptID] = true
		}
	}
	for _, id := range order {
		if committed[id] {
			continue // verified with the tree that commits it
		}
		if rep := receipt.Verify(ctx, store, id, keys, receipt.Limits{}); rep.Status != "verified" {
			return fmt.Errorf("setup.receipts: the tree of %s does not verify: %s %v", id, rep.Status, rep.Problems)
		}
	}
	return nil
}
