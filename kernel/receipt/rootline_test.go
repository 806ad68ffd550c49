package receipt

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// putRootLater seals a one-step tree and puts its root with
// PutRootIndexLater, returning the root and its mark.
func putRootLater(t *testing.T, st *Store, s *Signer, runID string) (sealed, IndexMark) {
	t.Helper()
	step := sealAndPut(t, st, s, stepBody(runID, "a"))
	root := sealBody(t, s, runBody(runID, step.ref))
	mark, err := st.PutRootIndexLater(root.r, root.bytes)
	if err != nil {
		t.Fatal(err)
	}
	return root, mark
}

func indexBytes(t *testing.T, st *Store) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(st.Dir(), IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func rootIDs(t *testing.T, st *Store) []string {
	t.Helper()
	entries, err := st.Index()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if e.Root {
			ids = append(ids, e.ReceiptID)
		}
	}
	return ids
}

// The mark says where the root's line went: it ends the index, and the
// flushed length is the index before it (the children's lines).
func TestPutRootIndexLaterMark(t *testing.T) {
	if !syncsStore {
		t.Skip("no syncfs(2) here: PutRootIndexLater is PutRoot and marks nothing")
	}
	st, s := newTestStore(t), newTestSigner(t, "o")
	root, mark := putRootLater(t, st, s, "r1")
	raw := indexBytes(t, st)
	line, err := indexLine(entryOf(root.r, true))
	if err != nil {
		t.Fatal(err)
	}
	if mark.End != int64(len(raw)) || mark.Flushed != mark.End-int64(len(line)) || string(raw[mark.Flushed:]) != string(line) {
		t.Fatalf("mark %+v over an index of %d bytes ending %q", mark, len(raw), raw[max(0, mark.Flushed):])
	}
	rep := Verify(context.Background(), st, root.r.ID, NewKeySet(s.PublicKey()), Limits{})
	if rep.Status != "verified" {
		t.Fatalf("root put with its line later: %s", describe(rep))
	}
	// A root file written before, but never indexed (its driver stopped
	// between the two), is indexed by the next put of the same bytes.
	other := sealBody(t, s, runBody("r2"))
	if _, err := writeExclusive(receiptPath(t, st, other.r.ID), other.bytes, false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutRootIndexLater(other.r, other.bytes); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutRootIndexLater(other.r, other.bytes); err != nil {
		t.Fatal(err)
	}
	if got := rootIDs(t, st); len(got) != 2 || got[1] != other.r.ID {
		t.Fatalf("roots indexed %v, want the first and %s once", got, other.r.ID)
	}
}

// A power cut after the seal can lose a root's index line, at the end of
// the index or in a hole (zeros) with later lines after it; RepairIndex
// appends it again, once, and leaves lines that are there alone.
func TestRepairIndex(t *testing.T) {
	if !syncsStore {
		t.Skip("no syncfs(2) here: every root line is fsynced and nothing is marked")
	}
	st, s := newTestStore(t), newTestSigner(t, "o")
	first, firstMark := putRootLater(t, st, s, "r1")
	root, mark := putRootLater(t, st, s, "r2")
	pending := []PendingRoot{{first.r.ID, firstMark}, {root.r.ID, mark}}
	path := filepath.Join(st.Dir(), IndexFile)

	// Nothing lost: nothing appended, and a read-only index is no obstacle.
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if got, err := st.RepairIndex(pending); err != nil || len(got) != 0 {
		t.Fatalf("repair of a whole index: %v %v", got, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}

	// The last line lost: truncated away.
	line, _ := indexLine(entryOf(root.r, true))
	if err := os.Truncate(path, mark.End-int64(len(line))); err != nil {
		t.Fatal(err)
	}
	if got := rootIDs(t, st); len(got) != 1 {
		t.Fatalf("roots after the cut %v", got)
	}
	got, err := st.RepairIndex(pending)
	if err != nil || len(got) != 1 || got[0] != root.r.ID {
		t.Fatalf("repair = %v %v, want %s", got, err, root.r.ID)
	}
	if ids := rootIDs(t, st); len(ids) != 2 || ids[1] != root.r.ID {
		t.Fatalf("roots after repair %v", ids)
	}
	// Repairing again appends nothing: the line is found past the flush.
	if got, err := st.RepairIndex(pending); err != nil || len(got) != 0 {
		t.Fatalf("second repair = %v %v", got, err)
	}

	// A hole: the line reads back as zeros, with another run's lines after.
	st2, _ := Open(t.TempDir())
	defer st2.Close()
	r1, m1 := putRootLater(t, st2, s, "r1")
	sealAndPut(t, st2, s, stepBody("r3", "a"))
	raw := indexBytes(t, st2)
	line, _ = indexLine(entryOf(r1.r, true))
	copy(raw[m1.End-int64(len(line)):m1.End-1], make([]byte, len(line)-1))
	if err := os.WriteFile(filepath.Join(st2.Dir(), IndexFile), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if ids := rootIDs(t, st2); len(ids) != 0 {
		t.Fatalf("roots read over a hole %v", ids)
	}
	if got, err := st2.RepairIndex([]PendingRoot{{r1.r.ID, m1}}); err != nil || len(got) != 1 {
		t.Fatalf("repair over a hole = %v %v", got, err)
	}
	if ids := rootIDs(t, st2); len(ids) != 1 || ids[0] != r1.r.ID {
		t.Fatalf("roots after repairing a hole %v", ids)
	}

	// A root whose file is not in this store (it was moved aside) is
	// not this store's to index.
	st3, _ := Open(t.TempDir())
	defer st3.Close()
	if got, err := st3.RepairIndex(pending); err != nil || len(got) != 0 {
		t.Fatalf("repair in another store = %v %v", got, err)
	}
}
