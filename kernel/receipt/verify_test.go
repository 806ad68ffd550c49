package receipt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// tree is a small run: root -> (step a -> child run -> child step, step b).
type tree struct {
	root, stepA, childRun, childStep, stepB sealed
}

func buildTree(tb testing.TB, st *Store, sg *Signer) tree {
	tb.Helper()
	var t tree
	t.childStep = sealAndPut(tb, st, sg, stepBody("run-child", "leaf"))
	t.childRun = sealAndPut(tb, st, sg, runBody("run-child", t.childStep.ref))
	t.stepA = sealAndPut(tb, st, sg, stepBody("run-1", "a", t.childRun.ref))
	t.stepB = sealAndPut(tb, st, sg, stepBody("run-1", "b"))
	t.root = sealAndPutRoot(tb, st, sg, runBody("run-1", t.stepA.ref, t.stepB.ref))
	return t
}

func TestVerifyRoundTrip(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	tr := buildTree(t, st, sg)
	rep := Verify(context.Background(), st, tr.root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	if rep.Status != StatusVerified {
		t.Fatalf("status %s: %s", rep.Status, describe(rep))
	}
	if rep.ReceiptID != tr.root.r.ID || rep.Receipts != 5 || rep.Depth != 3 || len(rep.Problems) != 0 {
		t.Fatalf("report %+v", rep)
	}
}

func TestVerifyAnyByteChangedIsInvalid(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	child := sealAndPut(t, st, sg, stepBody("run-1", "child"))
	root := sealAndPutRoot(t, st, sg, runBody("run-1", child.ref))
	keys := NewKeySet(sg.PublicKey())
	for _, target := range []sealed{root, child} {
		for i := range target.bytes {
			changed := append([]byte(nil), target.bytes...)
			changed[i] = flip(changed[i])
			overwrite(t, st, target.r.ID, changed)
			rep := Verify(context.Background(), st, root.r.ID, keys, Limits{})
			if rep.Status != StatusInvalid {
				t.Fatalf("byte %d of %s changed (%q -> %q): status %s", i, target.r.ID, target.bytes[i], changed[i], rep.Status)
			}
			if !names(rep, target.r.ID) {
				t.Fatalf("byte %d changed: no problem names %s: %s", i, target.r.ID, describe(rep))
			}
		}
		overwrite(t, st, target.r.ID, target.bytes)
	}
}

// flip changes a byte to another printable one, keeping the file text.
func flip(b byte) byte {
	if b == 'x' {
		return 'y'
	}
	return 'x'
}

func names(rep Report, id string) bool {
	for _, p := range rep.Problems {
		if p.ReceiptID == id {
			return true
		}
	}
	return false
}

func TestVerifyBodyChangeIsDigestMismatch(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	x := sealAndPutRoot(t, st, sg, runBody("run-1"))
	overwrite(t, st, x.r.ID, []byte(strings.Replace(string(x.bytes), `"run-1"`, `"run-2"`, 1)))
	rep := Verify(context.Background(), st, x.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_digest_mismatch", x.r.ID)
}

func TestVerifyBadSignatureIsInvalid(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	x := sealAndPutRoot(t, st, sg, runBody("run-1"))
	forged := *x.r
	other := sealBody(t, newTestSigner(t, "other"), runBody("run-other"))
	forged.Signature.Value = other.r.Signature.Value // a real signature, over another body
	b, err := canon.Canonical(&forged)
	if err != nil {
		t.Fatal(err)
	}
	overwrite(t, st, x.r.ID, b)
	rep := Verify(context.Background(), st, x.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "signature_invalid", x.r.ID)
}

func TestVerifyUnknownKeyIsUnverified(t *testing.T) {
	st := newTestStore(t)
	stranger := newTestSigner(t, "stranger")
	tr := buildTree(t, st, stranger)
	rep := Verify(context.Background(), st, tr.root.r.ID, NewKeySet(newTestSigner(t, "own").PublicKey()), Limits{})
	wantProblem(t, rep, StatusUnverified, "signature_untrusted", tr.root.r.ID)
	if len(rep.Problems) != 1 {
		t.Fatalf("one untrusted key gave %d problems: %s", len(rep.Problems), describe(rep))
	}
	if !strings.Contains(rep.Problems[0].Message, stranger.KeyID()) {
		t.Fatalf("message does not name the key: %s", rep.Problems[0].Message)
	}
	if rep.Receipts != 5 {
		t.Fatalf("walk stopped early: %d receipts", rep.Receipts)
	}
}

func TestVerifyFixtureKeyTrustedOnlyWhenAdded(t *testing.T) {
	st := newTestStore(t)
	fx, err := NewSigner(FixtureKey())
	if err != nil {
		t.Fatal(err)
	}
	x := sealAndPutRoot(t, st, fx, runBody("run-1"))
	var keys KeySet
	rep := Verify(context.Background(), st, x.r.ID, keys, Limits{})
	wantProblem(t, rep, StatusUnverified, "signature_untrusted", x.r.ID)
	keys.Add(fx.PublicKey())
	if rep := Verify(context.Background(), st, x.r.ID, keys, Limits{}); rep.Status != StatusVerified {
		t.Fatalf("status %s with the fixture key added: %s", rep.Status, describe(rep))
	}
}

func TestVerifyInvalidOutranksUnverified(t *testing.T) {
	st := newTestStore(t)
	stranger := newTestSigner(t, "stranger")
	tr := buildTree(t, st, stranger)
	if err := os.Remove(receiptPath(t, st, tr.childStep.r.ID)); err != nil {
		t.Fatal(err)
	}
	rep := Verify(context.Background(), st, tr.root.r.ID, KeySet{}, Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_missing", tr.childStep.r.ID)
	wantProblem(t, rep, StatusInvalid, "signature_untrusted", tr.root.r.ID)
}

func TestVerifyTamperedChildMakesRootInvalid(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	tr := buildTree(t, st, sg)
	keys := NewKeySet(sg.PublicKey())
	keys.Add(newTestSigner(t, "other").PublicKey())

	// The same child body re-signed by another trusted key: same id, intact
	// body, valid trusted signature, yet not what the parent committed.
	resigned := sealBody(t, newTestSigner(t, "other"), tr.childStep.r.Body)
	if resigned.r.ID != tr.childStep.r.ID {
		t.Fatal("test setup: re-signing changed the id")
	}
	overwrite(t, st, tr.childStep.r.ID, resigned.bytes)
	rep := Verify(context.Background(), st, tr.root.r.ID, keys, Limits{})
	wantProblem(t, rep, StatusInvalid, "child_commitment_mismatch", tr.childStep.r.ID)
	if len(rep.Problems) != 1 {
		t.Fatalf("want only the commitment problem: %s", describe(rep))
	}
	if !strings.Contains(rep.Problems[0].Message, tr.childRun.r.ID) {
		t.Fatalf("message does not name the parent: %s", rep.Problems[0].Message)
	}
}

func TestVerifyMissingChild(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	tr := buildTree(t, st, sg)
	if err := os.Remove(receiptPath(t, st, tr.stepB.r.ID)); err != nil {
		t.Fatal(err)
	}
	rep := Verify(context.Background(), st, tr.root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_missing", tr.stepB.r.ID)
	if rep.Receipts != 5 {
		t.Fatalf("a missing receipt should still count as reached: %d", rep.Receipts)
	}
}

func TestVerifyMissingRoot(t *testing.T) {
	st := newTestStore(t)
	id := canon.DigestBytes([]byte("nothing"))
	rep := Verify(context.Background(), st, id, KeySet{}, Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_missing", id)
}

func TestVerifyInvalidRootID(t *testing.T) {
	st := newTestStore(t)
	rep := Verify(context.Background(), st, "sha256:../../etc", KeySet{}, Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_id_invalid", "sha256:../../etc")
}

func TestVerifyCommittedByTwoParents(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	shared := sealAndPut(t, st, sg, stepBody("run-1", "shared"))
	a := sealAndPut(t, st, sg, stepBody("run-1", "a", shared.ref))
	b := sealAndPut(t, st, sg, stepBody("run-1", "b", shared.ref))
	root := sealAndPutRoot(t, st, sg, runBody("run-1", a.ref, b.ref))
	rep := Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_committed_twice", shared.r.ID)
	if !strings.Contains(rep.Problems[0].Message, b.r.ID) {
		t.Fatalf("message does not name the second parent: %s", rep.Problems[0].Message)
	}
}

func TestVerifyCommittedTwiceByOneParent(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	child := sealAndPut(t, st, sg, stepBody("run-1", "c"))
	// Seal refuses this body; another signer might not.
	root := sealUnchecked(t, sg, runBody("run-1", child.ref, child.ref))
	put(t, st, root)
	rep := Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_committed_twice", child.r.ID)
	if rep.Receipts != 2 {
		t.Fatalf("a receipt committed twice was read twice: %d receipts", rep.Receipts)
	}
}

// chain puts a root and n levels below it, returning the ids from the root
// down.
func chain(tb testing.TB, st *Store, sg *Signer, n int) []string {
	tb.Helper()
	ids := make([]string, n+1)
	var below []ChildRef
	for level := n; level >= 0; level-- {
		var x sealed
		if level == 0 {
			x = sealAndPutRoot(tb, st, sg, runBody("run-1", below...))
		} else {
			x = sealAndPut(tb, st, sg, stepBody("run-1", fmt.Sprintf("level-%d", level), below...))
		}
		ids[level] = x.r.ID
		below = []ChildRef{x.ref}
	}
	return ids
}

func TestVerifyDepthBound(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	keys := NewKeySet(sg.PublicKey())

	ok := chain(t, st, sg, MaxTreeDepth)
	rep := Verify(context.Background(), st, ok[0], keys, Limits{})
	if rep.Status != StatusVerified || rep.Depth != MaxTreeDepth || rep.Receipts != MaxTreeDepth+1 {
		t.Fatalf("a tree %d levels deep: %+v %s", MaxTreeDepth, rep, describe(rep))
	}

	st3 := newTestStore(t)
	deep := chain(t, st3, sg, MaxTreeDepth+1)
	rep = Verify(context.Background(), st3, deep[0], keys, Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_tree_too_deep", deep[MaxTreeDepth+1])
	if rep.Receipts != MaxTreeDepth+1 {
		t.Fatalf("the too-deep receipt was read: %d receipts", rep.Receipts)
	}

	// A caller may hold a tree to less.
	rep = Verify(context.Background(), st, ok[0], keys, Limits{MaxDepth: 3})
	wantProblem(t, rep, StatusInvalid, "receipt_tree_too_deep", ok[4])
	// But not to more: the bound is one rule for every verifier.
	rep = Verify(context.Background(), st3, deep[0], keys, Limits{MaxDepth: 1000})
	wantProblem(t, rep, StatusInvalid, "receipt_tree_too_deep", deep[MaxTreeDepth+1])
}

func TestVerifySizeBound(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	keys := NewKeySet(sg.PublicKey())
	tr := buildTree(t, st, sg) // 5 receipts: root, a -> child run -> child step, b

	if rep := Verify(context.Background(), st, tr.root.r.ID, keys, Limits{MaxReceipts: 5}); rep.Status != StatusVerified {
		t.Fatalf("5 receipts under a bound of 5: %s", describe(rep))
	}
	// The child run's one child would be the fifth receipt: the child run
	// is named, and nothing below it is read.
	rep := Verify(context.Background(), st, tr.root.r.ID, keys, Limits{MaxReceipts: 4})
	wantProblem(t, rep, StatusInvalid, "receipt_tree_too_large", tr.childRun.r.ID)
	if rep.Receipts != 3 {
		t.Fatalf("read %d receipts under a bound of 4, want 3", rep.Receipts)
	}
	if got := (Limits{MaxReceipts: 1 << 30}).normalized().MaxReceipts; got != MaxTreeReceipts {
		t.Fatalf("MaxReceipts above the bound narrowed to %d", got)
	}
}

func TestVerifyMalformedChild(t *testing.T) {
	tests := map[string][]byte{
		"not json":       []byte("garbage"),
		"unknown field":  []byte(`{"schema":"runx.receipt.v1","id":"x","body":{},"signature":{},"extra":1}`),
		"other schema":   []byte(`{"schema":"runx.receipt.v0","id":"x","body":{},"signature":{}}`),
		"duplicate keys": []byte(`{"schema":"runx.receipt.v1","schema":"runx.receipt.v1"}`),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			st := newTestStore(t)
			sg := newTestSigner(t, "own")
			tr := buildTree(t, st, sg)
			overwrite(t, st, tr.stepB.r.ID, data)
			rep := Verify(context.Background(), st, tr.root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
			wantProblem(t, rep, StatusInvalid, "receipt_malformed", tr.stepB.r.ID)
		})
	}
}

func TestVerifyBodyOutsideTheSchema(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	b := runBody("run-1")
	b.Outcome = "paused"
	x := sealUnchecked(t, sg, b)
	put(t, st, x)
	rep := Verify(context.Background(), st, x.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_body_invalid", x.r.ID)
}

func TestVerifyInvalidChildID(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	x := sealUnchecked(t, sg, runBody("run-1", ChildRef{ReceiptID: "nope", SignedDigest: canon.DigestBytes(nil)}))
	put(t, st, x)
	rep := Verify(context.Background(), st, x.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_id_invalid", "nope")
}

func TestVerifyCancelled(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	tr := buildTree(t, st, sg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := Verify(ctx, st, tr.root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusUnverified, "verify_cancelled", tr.root.r.ID)
	if rep.Receipts != 0 {
		t.Fatalf("read %d receipts after cancellation", rep.Receipts)
	}
}

func TestVerifyCapsProblems(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	var refs []ChildRef
	for i := range 5 {
		x := sealBody(t, sg, stepBody("run-1", fmt.Sprintf("gone-%d", i))) // never stored
		refs = append(refs, x.ref)
	}
	root := sealAndPutRoot(t, st, sg, runBody("run-1", refs...))
	rep := Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{MaxProblems: 2})
	if rep.Status != StatusInvalid || len(rep.Problems) != 2 || rep.ProblemsOmitted != 3 {
		t.Fatalf("status %s, %d problems, %d omitted", rep.Status, len(rep.Problems), rep.ProblemsOmitted)
	}
}

// A parent that commits to a child's bytes as stored, when those bytes are
// not canonical, has not made the commitment runx.receipt.v1 defines: two
// JSON readers could disagree about such bytes.
func TestVerifyNonCanonicalCommittedChild(t *testing.T) {
	sg := newTestSigner(t, "own")
	tests := []struct {
		name string
		make func(canonical []byte) []byte
		code errcode.Code
	}{
		{"reindented", func(c []byte) []byte {
			var b bytes.Buffer
			if err := json.Indent(&b, c, "", " "); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}, errcode.ChildCommitmentMismatch},
		{"duplicate key", func(c []byte) []byte {
			return bytes.Replace(c, []byte(`"id":`), []byte(`"schema":"runx.receipt.v1","id":`), 1)
		}, errcode.ReceiptMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newTestStore(t)
			child := sealBody(t, sg, stepBody("run-1", "c"))
			stored := tt.make(child.bytes)
			overwrite(t, st, child.r.ID, stored) // as another signer's store would hold it
			root := sealAndPutRoot(t, st, sg, runBody("run-1", ChildRef{ReceiptID: child.r.ID, SignedDigest: canon.DigestBytes(stored)}))
			rep := Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
			wantProblem(t, rep, StatusInvalid, string(tt.code), child.r.ID)
		})
	}
}

// The root is committed by nobody, so its stored form may be reformatted
// without changing what it says; its canonical form is what is checked.
func TestVerifyReformattedRootStillVerifies(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	tr := buildTree(t, st, sg)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, tr.root.bytes, "", "  "); err != nil {
		t.Fatal(err)
	}
	overwrite(t, st, tr.root.r.ID, pretty.Bytes())
	if rep := Verify(context.Background(), st, tr.root.r.ID, NewKeySet(sg.PublicKey()), Limits{}); rep.Status != StatusVerified {
		t.Fatalf("status %s: %s", rep.Status, describe(rep))
	}
}

func TestVerifyReportIsDeterministic(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	var refs []ChildRef
	for i := range 40 {
		x := sealAndPut(t, st, sg, stepBody("run-1", fmt.Sprintf("s%d", i)))
		// Break every signature: problems now come from the check pool,
		// in whatever order its workers finish.
		forged := *x.r
		forged.Signature.Value = strings.Repeat("A", 86) + "=="
		b, err := canon.Canonical(&forged)
		if err != nil {
			t.Fatal(err)
		}
		overwrite(t, st, x.r.ID, b)
		refs = append(refs, ChildRef{ReceiptID: x.r.ID, SignedDigest: canon.DigestBytes(b)})
	}
	root := sealAndPutRoot(t, st, sg, runBody("run-1", refs...))
	first := fmt.Sprint(Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{MaxProblems: 10}))
	for range 20 {
		if again := fmt.Sprint(Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{MaxProblems: 10})); again != first {
			t.Fatalf("reports differ:\n%s\n%s", first, again)
		}
	}
	if !strings.Contains(first, refs[0].ReceiptID) || strings.Contains(first, refs[39].ReceiptID) {
		t.Fatalf("the kept problems are not the first in walk order: %s", first)
	}
}

// A receipt committing more children than the bound has room for is refused
// before any child is read, so a wide list cannot be followed by more wide
// lists down the path.
func TestVerifyRefusesAnOversizedChildList(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	var refs []ChildRef
	for i := range 6 {
		refs = append(refs, sealBody(t, sg, stepBody("run-1", fmt.Sprintf("s%d", i))).ref) // never stored
	}
	root := sealAndPutRoot(t, st, sg, runBody("run-1", refs...))
	rep := Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{MaxReceipts: 6})
	wantProblem(t, rep, StatusInvalid, "receipt_tree_too_large", root.r.ID)
	if rep.Receipts != 1 || len(rep.Problems) != 1 {
		t.Fatalf("walked past the refusal: %d receipts, problems %s", rep.Receipts, describe(rep))
	}
}

// A receipt file that is a symbolic link, here to a valid copy of itself
// outside the store, is never followed: Get refuses it and verify reports
// the tree invalid, both with receipt_file_unsafe.
func TestVerifyRefusesASymlinkOutOfTheStore(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	child := sealAndPut(t, st, sg, stepBody("run-1", "child"))
	root := sealAndPutRoot(t, st, sg, runBody("run-1", child.ref))
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(outside, child.bytes, 0o600); err != nil {
		t.Fatal(err)
	}
	p := receiptPath(t, st, child.r.ID)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	_, _, err := st.Get(child.r.ID)
	wantCode(t, err, errcode.ReceiptFileUnsafe)
	rep := Verify(context.Background(), st, root.r.ID, NewKeySet(sg.PublicKey()), Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_file_unsafe", child.r.ID)
}
