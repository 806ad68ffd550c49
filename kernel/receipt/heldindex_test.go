package receipt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// sealLogged seals a run the way a logged seal does (kernel/run): its step
// put below the root, the root written unindexed, the log told both are
// held, then the root indexed.
func sealLogged(tb testing.TB, st *Store, sg *Signer, runID string) *Receipt {
	tb.Helper()
	step, stepBytes, err := sg.Seal(stepBody(runID, "work"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.Put(step, stepBytes); err != nil {
		tb.Fatal(err)
	}
	root, rootBytes, err := sg.Seal(runBody(runID, SealedRef(step, stepBytes)))
	if err != nil {
		tb.Fatal(err)
	}
	hint, err := st.PutRootLogged(root, rootBytes)
	if err != nil {
		tb.Fatal(err)
	}
	st.Logged(st.Unlogged())
	if err := st.IndexRoot(root, hint); err != nil {
		tb.Fatal(err)
	}
	return root
}

func loggingStore(tb testing.TB, dir string) *Store {
	tb.Helper()
	st, err := Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if !st.LogWrites() {
		tb.Skip("no syncfs(2): the store is not logged here")
	}
	return st
}

// indexedRoots counts the root lines per receipt id in the index at dir.
func indexedRoots(tb testing.TB, dir string) map[string]int {
	tb.Helper()
	st, err := Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	entries, err := st.Index()
	if err != nil {
		tb.Fatal(err)
	}
	roots := map[string]int{}
	for _, e := range entries {
		if e.Root {
			roots[e.ReceiptID]++
		}
	}
	return roots
}

// The store keeps one descriptor on its index across seals; when the file
// at the index's path is replaced between two seals, the second seal's
// lines land in the new file, never in the one the descriptor was opened on.
func TestHeldIndexFollowsAReplacedIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "receipts")
	st := loggingStore(t, dir)
	sg := newTestSigner(t, "held")
	first := sealLogged(t, st, sg, "run-1")

	// Replace the index with a copy of itself (as a tool that rewrites it
	// would), renamed over it: same bytes, another file.
	index := filepath.Join(dir, IndexFile)
	old, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(index, index+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, old, 0o600); err != nil {
		t.Fatal(err)
	}
	second := sealLogged(t, st, sg, "run-2")

	roots := indexedRoots(t, dir)
	if roots[first.ID] != 1 || roots[second.ID] != 1 {
		t.Fatalf("the new index holds root lines %v, want each of %s and %s once", roots, first.ID, second.ID)
	}
	stale, err := os.ReadFile(index + ".old")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stale, old) {
		t.Fatalf("the replaced index was written after it was replaced:\n%s", stale[len(old):])
	}
}

// A store moved aside while a process holds its index, with a new store
// made at its path: the process's next seal goes wholly into the new store.
func TestHeldIndexFollowsAStoreMovedAside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "receipts")
	st := loggingStore(t, dir)
	sg := newTestSigner(t, "moved")
	first := sealLogged(t, st, sg, "run-1")
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	second := sealLogged(t, st, sg, "run-2")

	newRoots, oldRoots := indexedRoots(t, dir), indexedRoots(t, dir+".old")
	if len(newRoots) != 1 || newRoots[second.ID] != 1 {
		t.Fatalf("the new store indexes roots %v, want only %s", newRoots, second.ID)
	}
	if len(oldRoots) != 1 || oldRoots[first.ID] != 1 {
		t.Fatalf("the store moved aside indexes roots %v, want only %s", oldRoots, first.ID)
	}
	entries, err := fresh.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("the new store's index holds %d lines, want the second run's step and root", len(entries))
	}
	if _, _, err := fresh.Get(second.ID); err != nil {
		t.Fatalf("the second root's file is not in the new store: %v", err)
	}
}

// Two stores on one directory stand for two processes: each holds its own
// descriptor, and their seals, with a restore of each root (in the other
// store or the same one) racing the seal's own indexing, leave every line
// whole and every root indexed once.
func TestTwoStoresAppendConcurrently(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "receipts")
	stores := []*Store{loggingStore(t, dir), loggingStore(t, dir)}
	sg := newTestSigner(t, "two")
	const workers, each = 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// The restore runs in the other store, or in the same
				// one through the descriptor a restore opens.
				st, other := stores[w%2], stores[(w+i)%2]
				if err := sealRacingRestore(st, other, sg, fmt.Sprintf("run-%d-%d", w, i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		t.Fatal("the index does not end with a whole line")
	}
	// Index refuses any line that does not parse but a torn last one,
	// which the check above rules out.
	roots := indexedRoots(t, dir)
	if len(roots) != workers*each {
		t.Fatalf("the index holds %d roots, want %d", len(roots), workers*each)
	}
	for id, n := range roots {
		if n != 1 {
			t.Fatalf("root %s is indexed %d times", id, n)
		}
	}
	entries, err := stores[0].Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2*workers*each {
		t.Fatalf("the index holds %d lines, want %d (a step and a root a run)", len(entries), 2*workers*each)
	}
}

// sealRacingRestore seals a run in st while other restores its root from
// the log, as a flush in another process may.
func sealRacingRestore(st, other *Store, sg *Signer, runID string) error {
	r, b, err := sg.Seal(stepBody(runID, "work"))
	if err != nil {
		return err
	}
	if err := st.Put(r, b); err != nil {
		return err
	}
	root, rootBytes, err := sg.Seal(runBody(runID, SealedRef(r, b)))
	if err != nil {
		return err
	}
	hint, err := st.PutRootLogged(root, rootBytes)
	if err != nil {
		return err
	}
	line, err := indexLine(entryOf(root, true))
	if err != nil {
		return err
	}
	name := "sha256-" + root.ID[len("sha256:"):] + ".json"
	restored := make(chan error, 1)
	go func() {
		_, err := other.Restore([]LoggedFile{{Name: name, Bytes: rootBytes, Line: line, Hint: hint}})
		restored <- err
	}()
	err = st.IndexRoot(root, hint)
	if rerr := <-restored; err == nil {
		err = rerr
	}
	return err
}

// BenchmarkLoggedSeal is the receipt store's share of a sealed one-step
// call (kernel/run's logged seal): a step sealed and put, the root sealed,
// written unindexed, then indexed, on the disk the temporary directory is
// on. The journal commit between the last two is not part of it.
func BenchmarkLoggedSeal(b *testing.B) {
	st := loggingStore(b, filepath.Join(b.TempDir(), "receipts"))
	sg := newTestSigner(b, "bench")
	b.ReportAllocs()
	cpu0, ok := processCPU()
	i := 0
	for b.Loop() {
		sealLogged(b, st, sg, fmt.Sprintf("run-%d", i))
		i++
	}
	if cpu1, ok1 := processCPU(); ok && ok1 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(i), "cpu-µs/op")
	}
}
