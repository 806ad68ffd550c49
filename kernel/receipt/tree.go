package receipt

import "context"

// TreeOf finds the root of the tree that commits id, so a verifier checks
// the tree a receipt belongs to, not only what lies below it: a child never
// names its parent, so the store's roots are walked, newest first, until one
// reaches id. A receipt no stored root reaches is its own root (a seeded
// receipt, or one whose root is not in this store). Only commitments are
// read here; Verify then proves the tree.
//
// A receipt the index lists as a root is its own tree, settled before any
// other tree is read, and only the index lines naming it are decoded, so
// verifying a run opens only that run's receipts however many other runs
// the store holds (TestTreeOfReadsOnlyItsTree); the index is still read
// through, a byte search per line.
func (s *Store) TreeOf(ctx context.Context, id string) (string, error) {
	root := false
	err := s.scanIndexNaming([]byte(id), func(e IndexEntry) { root = root || (e.Root && e.ReceiptID == id) })
	if err != nil {
		return "", err
	}
	if root {
		return id, nil
	}
	entries, err := s.Index()
	if err != nil {
		return "", err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.Root {
			continue
		}
		if e.ReceiptID == id {
			return id, nil
		}
		found, err := s.reaches(ctx, e.ReceiptID, id)
		if err != nil {
			return "", err
		}
		if found {
			return e.ReceiptID, nil
		}
	}
	return id, nil
}

// reaches walks the tree under root by its commitments, within the tree
// bound, and reports whether it reaches id. A receipt it cannot read ends
// that branch: Verify reports it when the tree is checked.
func (s *Store) reaches(ctx context.Context, root, id string) (bool, error) {
	stack := []string{root}
	seen := map[string]bool{root: true}
	for len(stack) > 0 && len(seen) <= MaxTreeReceipts {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		r, _, err := s.Get(cur)
		if err != nil {
			continue
		}
		for _, c := range r.Body.Children {
			if c.ReceiptID == id {
				return true, nil
			}
			if !seen[c.ReceiptID] {
				seen[c.ReceiptID] = true
				stack = append(stack, c.ReceiptID)
			}
		}
	}
	return false, nil
}
