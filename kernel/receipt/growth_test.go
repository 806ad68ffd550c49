package receipt

import (
	"context"
	"fmt"
	"testing"
)

// TestTreeOfReadsOnlyItsTree: finding and verifying the tree of the oldest
// run opens the same receipt files and decodes the same index lines whether
// the store holds 10 runs or 5,000; it once read every newer run's tree
// first, so the oldest of 1,000 runs cost 3.2x the newest, and decoded every
// index line. The work is counted, not timed.
func TestTreeOfReadsOnlyItsTree(t *testing.T) {
	sizes := []int{10, 100, 1000, 5000}
	if testing.Short() {
		sizes = sizes[:3]
	}
	s := newTestSigner(t, "growth")
	var want int64
	for _, n := range sizes {
		st := newTestStore(t)
		var oldest string
		for i := range n {
			id := putRunFast(t, st, s, fmt.Sprintf("run_%05d", i))
			if i == 0 {
				oldest = id
			}
		}
		st.reads.Store(0)
		st.decodes.Store(0)
		root, err := st.TreeOf(context.Background(), oldest)
		if err != nil || root != oldest {
			t.Fatalf("N=%d: TreeOf = %s, %v; want %s", n, root, err, oldest)
		}
		if rep := Verify(context.Background(), st, root, KeySet{}, Limits{}); rep.Receipts != 2 {
			t.Fatalf("N=%d: verify reached %d receipts, want 2: %s", n, rep.Receipts, describe(rep))
		}
		got := st.reads.Load()
		t.Logf("N=%d: %d receipt files read, %d index lines decoded", n, got, st.decodes.Load())
		if d := st.decodes.Load(); d != 1 {
			t.Errorf("N=%d: finding the oldest run's tree decoded %d index lines, want 1 (its own)", n, d)
		}
		if want == 0 {
			want = got
		}
		if got != want {
			t.Errorf("N=%d: verifying the oldest run read %d receipt files; at N=%d it read %d", n, got, sizes[0], want)
		}
	}
}

// putRunFast stores a run of one step as a run's seal would, without the
// durability syncs a thousand roots would spend, and returns the root's id.
func putRunFast(tb testing.TB, st *Store, s *Signer, runID string) string {
	tb.Helper()
	step := sealAndPut(tb, st, s, stepBody(runID, "call"))
	root := sealBody(tb, s, runBody(runID, step.ref))
	p, err := st.checkPut(root.r, root.bytes)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := writeExclusive(p, root.bytes, false); err != nil {
		tb.Fatal(err)
	}
	if err := st.appendIndex(entryOf(root.r, true), false); err != nil {
		tb.Fatal(err)
	}
	return root.r.ID
}
