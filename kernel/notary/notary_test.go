package notary

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

func testKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("runx notary test key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

// testLog is a notary's log in memory: it appends statements as the server
// does and answers records and consistency proofs.
type testLog struct {
	key    ed25519.PrivateKey
	signer *CheckpointSigner
	log    MemoryLog
	stmts  []Statement
}

func newTestLog(t testing.TB, key ed25519.PrivateKey) *testLog {
	s, err := NewCheckpointSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	return &testLog{key: key, signer: s}
}

// add appends the statement of a receipt named by label.
func (l *testLog) add(t testing.TB, label string) int64 {
	st := Statement{
		ContentHash: canon.DigestBytes([]byte("receipt " + label)), LogIndex: l.log.Size(),
		NotarizedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(TimeLayout), Origin: l.signer.Origin(),
		ReceiptID: canon.DigestBytes([]byte("body " + label)), Schema: StatementSchema, SignerKeyID: canon.DigestBytes([]byte("signer")),
	}
	leaf, err := st.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.log.Append(leaf); err != nil {
		t.Fatal(err)
	}
	l.stmts = append(l.stmts, st)
	return st.LogIndex
}

// record is entry i's record in the tree as it is now.
func (l *testLog) record(t testing.TB, i int64) *Record {
	st := l.stmts[i]
	leaf, _ := st.Leaf()
	rec, err := NewRecord(l.signer, st, Seal(l.key, leaf), l.log.Size(), &l.log, "")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func (l *testLog) prove(ctx context.Context, old, new int64) (tlog.TreeProof, error) {
	return tlog.ProveTree(new, old, &l.log)
}

func encode(t testing.TB, rec *Record) []byte {
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyRecord(t *testing.T) {
	key := testKey("notary")
	pub := key.Public().(ed25519.PublicKey)
	l := newTestLog(t, key)
	for i := range 9 {
		l.add(t, fmt.Sprint(i))
	}
	for i := range int64(9) {
		v, err := VerifyRecord(encode(t, l.record(t, i)), pub)
		if err != nil || v.Checkpoint.Size != 9 || v.Record.Statement.LogIndex != i {
			t.Fatalf("entry %d: %+v %v", i, v, err)
		}
	}

	other := testKey("other")
	otherLog := newTestLog(t, other)
	otherLog.add(t, "0")
	tamperedSeal := l.record(t, 3)
	tamperedSeal.Counterseal.Value = l.record(t, 4).Counterseal.Value
	alteredStatement := l.record(t, 3)
	alteredStatement.Statement.NotarizedAt = "2027-01-02T03:04:05.000Z"
	anotherLeaf := l.record(t, 3)
	anotherLeaf.InclusionProof = l.record(t, 4).InclusionProof
	pastTree := l.record(t, 3)
	pastTree.Statement.LogIndex = 12
	foreignCheckpoint := l.record(t, 0)
	foreignCheckpoint.Checkpoint = otherLog.record(t, 0).Checkpoint
	badSchema := l.record(t, 0)
	badSchema.Schema = "runx.notary_record.v0"
	for name, tc := range map[string]struct {
		doc  []byte
		code errcode.Code
	}{
		"tampered counter-seal":   {encode(t, tamperedSeal), errcode.NotaryCountersealInvalid},
		"altered statement":       {encode(t, alteredStatement), errcode.NotaryCountersealInvalid},
		"proof for another leaf":  {encode(t, anotherLeaf), errcode.NotaryProofInvalid},
		"index past the tree":     {encode(t, pastTree), errcode.NotaryCountersealInvalid},
		"another notary's record": {encode(t, otherLog.record(t, 0)), errcode.NotaryCountersealInvalid},
		"foreign checkpoint":      {encode(t, foreignCheckpoint), errcode.NotaryCheckpointInvalid},
		"another schema":          {encode(t, badSchema), errcode.NotaryDocumentInvalid},
		"not json":                {[]byte("{"), errcode.NotaryDocumentInvalid},
		"unknown field":           {[]byte(`{"schema":"runx.notary_record.v1","extra":1}`), errcode.NotaryDocumentInvalid},
	} {
		if _, err := VerifyRecord(tc.doc, pub); contract.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
}

// A proof checked against the right leaf but a tree it is not in: the
// counter-seal holds, the proof does not.
func TestVerifyRecordProofAgainstAnotherTree(t *testing.T) {
	key := testKey("notary")
	l := newTestLog(t, key)
	for i := range 5 {
		l.add(t, fmt.Sprint(i))
	}
	rec := l.record(t, 2)
	l.add(t, "5")
	rec.Checkpoint = l.record(t, 5).Checkpoint // a tree of 6; the proof is for 5
	if _, err := VerifyRecord(encode(t, rec), key.Public().(ed25519.PublicKey)); contract.CodeOf(err) != errcode.NotaryProofInvalid {
		t.Fatalf("%v, want notary_proof_invalid", err)
	}
}

func TestStateFollowsTheLog(t *testing.T) {
	ctx := context.Background()
	key := testKey("notary")
	pub := key.Public().(ed25519.PublicKey)
	l := newTestLog(t, key)
	st := OpenState(t.TempDir())
	check := func(rec *Record, prove ProveTree) (Consistency, error) {
		v, err := VerifyRecord(encode(t, rec), pub)
		if err != nil {
			t.Fatal(err)
		}
		return st.Check(ctx, pub, v.Checkpoint, prove)
	}
	l.add(t, "0")
	l.add(t, "1")
	first := l.record(t, 1)
	if c, err := check(first, nil); err != nil || c != FirstSeen {
		t.Fatalf("first: %s %v", c, err)
	}
	if c, err := check(first, nil); err != nil || c != SameTree {
		t.Fatalf("same, offline: %s %v", c, err)
	}
	l.add(t, "2")
	l.add(t, "3")
	if _, err := check(l.record(t, 3), nil); contract.CodeOf(err) != errcode.NotaryUnavailable {
		t.Fatalf("larger tree without a way to prove it: %v", err)
	}
	if c, err := check(l.record(t, 3), l.prove); err != nil || c != Extends {
		t.Fatalf("extends: %s %v", c, err)
	}
	if last, _, _ := st.Last(pub); last.Size != 4 {
		t.Fatalf("the home remembers %d entries, want 4", last.Size)
	}
	if c, err := check(first, l.prove); err != nil || c != Precedes {
		t.Fatalf("an older record: %s %v", c, err)
	}

	// A fork: the same key signs a log whose entry 2 differs.
	fork := newTestLog(t, key)
	for _, label := range []string{"0", "1", "other", "3"} {
		fork.add(t, label)
	}
	if _, err := check(fork.record(t, 0), fork.prove); contract.CodeOf(err) != errcode.NotaryLogForked {
		t.Fatalf("same size, another root: %v", err)
	}
	fork.add(t, "4")
	if _, err := check(fork.record(t, 0), fork.prove); contract.CodeOf(err) != errcode.NotaryLogForked {
		t.Fatalf("larger forked tree: %v", err)
	}
	if last, _, _ := st.Last(pub); last.Size != 4 {
		t.Fatalf("a fork moved the home's checkpoint to %d entries", last.Size)
	}

	// The remembered checkpoint altered on disk is refused, not trusted.
	if err := os.WriteFile(st.path(pub), []byte("origin\n1\nAAAA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := check(first, l.prove); contract.CodeOf(err) != errcode.NotaryStateInvalid {
		t.Fatalf("altered state: %v", err)
	}
}

// A check holds the home's lock of the log's checkpoint from its read to
// its write: while another holds it, a check does not read a view the
// other may be moving (two verifies at once could otherwise step the view
// back to a smaller checkpoint). Here the test holds the lock; a check
// bounded by a short deadline gives up without touching the view, and
// once the lock is free it goes on.
func TestCheckHoldsTheHomesLock(t *testing.T) {
	key := testKey("notary")
	pub := key.Public().(ed25519.PublicKey)
	l := newTestLog(t, key)
	l.add(t, "0")
	st := OpenState(t.TempDir())
	v, err := VerifyRecord(encode(t, l.record(t, 0)), pub)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	held := flock.New(st.path(pub) + ".lock")
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := st.Check(ctx, pub, v.Checkpoint, nil); contract.CodeOf(err) != errcode.NotaryStateInvalid {
		t.Fatalf("a check while another holds the lock: %v, want it to give up", err)
	}
	if _, seen, _ := st.Last(pub); seen {
		t.Fatal("a check that never held the lock wrote the view")
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if c, err := st.Check(context.Background(), pub, v.Checkpoint, nil); err != nil || c != FirstSeen {
		t.Fatalf("once the lock is free: %s %v", c, err)
	}
}

func TestParsePublicKey(t *testing.T) {
	pub := testKey("k").Public().(ed25519.PublicKey)
	got, err := ParsePublicKey(FormatPublicKey(pub))
	if err != nil || !got.Equal(pub) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "not pem", string(FormatPublicKey(pub)) + "trailing"} {
		if _, err := ParsePublicKey([]byte(bad)); contract.CodeOf(err) != errcode.NotaryKeyInvalid {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
