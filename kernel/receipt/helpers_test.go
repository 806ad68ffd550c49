package receipt

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

const (
	testStarted = "2026-01-02T03:04:05.000Z"
	testSealed  = "2026-01-02T03:04:06.250Z"
)

// testKey derives a key from a label so tests never depend on randomness.
func testKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("runx receipt test key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

func newTestSigner(tb testing.TB, label string) *Signer {
	tb.Helper()
	s, err := NewSigner(testKey(label))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func newTestStore(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(filepath.Join(tb.TempDir(), "receipts"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func stepBody(runID, stepID string, children ...ChildRef) Body {
	return Body{
		Kind:      KindStep,
		RunID:     runID,
		SkillName: "test-skill",
		StepID:    stepID,
		StepKind:  "tool",
		Outcome:   seal.OutcomeCompleted,
		StartedAt: testStarted,
		SealedAt:  testSealed,
		Children:  children,
	}
}

func runBody(runID string, children ...ChildRef) Body {
	b := stepBody(runID, "", children...)
	b.Kind = KindRun
	b.StepKind = ""
	return b
}

// sealed is a receipt as a test needs it: the struct, its canonical bytes
// and the commitment a parent makes to it.
type sealed struct {
	r     *Receipt
	bytes []byte
	ref   ChildRef
}

func sealBody(tb testing.TB, s *Signer, body Body) sealed {
	tb.Helper()
	r, b, err := s.Seal(body)
	if err != nil {
		tb.Fatal(err)
	}
	ref, err := ChildRefOf(b)
	if err != nil {
		tb.Fatal(err)
	}
	return sealed{r: r, bytes: b, ref: ref}
}

func sealAndPut(tb testing.TB, st *Store, s *Signer, body Body) sealed {
	tb.Helper()
	x := sealBody(tb, s, body)
	if err := st.Put(x.r, x.bytes); err != nil {
		tb.Fatal(err)
	}
	return x
}

func sealAndPutRoot(tb testing.TB, st *Store, s *Signer, body Body) sealed {
	tb.Helper()
	x := sealBody(tb, s, body)
	if err := st.PutRoot(x.r, x.bytes); err != nil {
		tb.Fatal(err)
	}
	return x
}

// sealUnchecked signs a body Seal would refuse, to stand in for a receipt
// produced by some other, careless signer.
func sealUnchecked(tb testing.TB, s *Signer, body Body) sealed {
	tb.Helper()
	bodyBytes, err := canon.Canonical(body)
	if err != nil {
		tb.Fatal(err)
	}
	r := &Receipt{
		Schema: Schema,
		ID:     canon.DigestBytes(bodyBytes),
		Body:   body,
		Signature: Signature{
			Alg:       SignatureAlg,
			KeyID:     s.KeyID(),
			PublicKey: EncodePublicKey(s.PublicKey()),
			Value:     base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, bodyBytes)),
		},
	}
	b, err := canon.Canonical(r)
	if err != nil {
		tb.Fatal(err)
	}
	return sealed{r: r, bytes: b, ref: ChildRef{ReceiptID: r.ID, SignedDigest: canon.DigestBytes(b)}}
}

func put(tb testing.TB, st *Store, x sealed) {
	tb.Helper()
	if err := st.Put(x.r, x.bytes); err != nil {
		tb.Fatal(err)
	}
}

// receiptPath is where the store keeps id.
func receiptPath(tb testing.TB, st *Store, id string) string {
	tb.Helper()
	p, err := st.path(id)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// overwrite replaces a stored file behind the store's back, as an attacker
// or a faulty disk would.
func overwrite(tb testing.TB, st *Store, id string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(receiptPath(tb, st, id), data, 0o600); err != nil {
		tb.Fatal(err)
	}
}

func wantCode(tb testing.TB, err error, code errcode.Code) {
	tb.Helper()
	var e *Error
	if !errors.As(err, &e) {
		tb.Fatalf("error %v (%T) is not a *receipt.Error; want code %s", err, err, code)
	}
	if e.Code != code {
		tb.Fatalf("error code %s (%v), want %s", e.Code, err, code)
	}
	if !errors.Is(err, &Error{Code: code}) {
		tb.Fatalf("errors.Is does not match code %s", code)
	}
}

// wantProblem asserts the report has status and a problem with code naming id.
func wantProblem(tb testing.TB, rep Report, status VerifyStatus, code, id string) {
	tb.Helper()
	if rep.Status != status {
		tb.Fatalf("status %s, want %s; problems: %s", rep.Status, status, describe(rep))
	}
	for _, p := range rep.Problems {
		if string(p.Code) == code && p.ReceiptID == id {
			return
		}
	}
	tb.Fatalf("no %s problem naming %s; problems: %s", code, id, describe(rep))
}

func describe(rep Report) string {
	s := ""
	for _, p := range rep.Problems {
		s += fmt.Sprintf("\n  %s %s: %s", p.Code, p.ReceiptID, p.Message)
	}
	if s == "" {
		return "none"
	}
	return s
}

func mustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}
