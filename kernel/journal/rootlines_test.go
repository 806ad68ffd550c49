package journal

import (
	"context"
	"testing"
)

// A seal records its root's index line in the same commit; a later seal
// whose flush covers it forgets it, per store; a plain Seal records none.
func TestSealIndexedKeepsUncoveredLines(t *testing.T) {
	j := open(t)
	ctx := context.Background()
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		newRun(t, j, id)
	}
	seal := func(run string, line RootLine) {
		t.Helper()
		if err := j.SealIndexed(ctx, run, "completed", "", "sha256:"+run, []byte(`{}`), line); err != nil {
			t.Fatal(err)
		}
	}
	pendingIDs := func(store string) []string {
		t.Helper()
		rows, err := j.ReceiptLog().PendingRootLines(ctx, store)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range rows {
			if r.ReceiptID != "sha256:"+r.RunID || r.Line.Store != store {
				t.Fatalf("pending row %+v", r)
			}
			ids = append(ids, r.RunID)
		}
		return ids
	}
	seal("r1", RootLine{Store: "/a", Flushed: 100, End: 300})
	seal("r2", RootLine{Store: "/b", Flushed: 0, End: 200})
	if got := pendingIDs("/a"); len(got) != 1 || got[0] != "r1" {
		t.Fatalf("pending in /a = %v", got)
	}
	// r3 flushed /a up to 300 before its own line: r1's line is covered.
	seal("r3", RootLine{Store: "/a", Flushed: 300, End: 500})
	if got := pendingIDs("/a"); len(got) != 1 || got[0] != "r3" {
		t.Fatalf("pending in /a after r3 = %v, want [r3]", got)
	}
	if got := pendingIDs("/b"); len(got) != 1 || got[0] != "r2" {
		t.Fatalf("pending in /b = %v, want [r2] (another store's flush covers nothing here)", got)
	}
	if err := j.Seal(ctx, "r4", "completed", "", "sha256:r4", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := pendingIDs("/a"); len(got) != 1 {
		t.Fatalf("a plain seal changed the pending lines: %v", got)
	}
}
