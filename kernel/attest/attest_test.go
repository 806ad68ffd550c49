package attest

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/internal/importrule"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestImportBoundary(t *testing.T) {
	importrule.Only(t, ".", "kernel/attest", "github.com/runxhq/runx/kernel/contract", "github.com/runxhq/runx/kernel/receipt",
		"github.com/runxhq/runx/sdk/canon", "github.com/runxhq/runx/sdk/errcode")
}

// PAE is the DSSE protocol's, byte for byte: its test vector's encoding,
// and the vector's own signature (ECDSA P-256 over SHA-256, r||s) verifies
// over the bytes PAE makes, so they are the bytes the reference signed.
func TestPAEIsTheProtocols(t *testing.T) {
	pae := PAE("http://example.com/HelloWorld", []byte("hello world"))
	if string(pae) != "DSSEv1 29 http://example.com/HelloWorld 11 hello world" {
		t.Fatalf("PAE = %q", pae)
	}
	x, _ := new(big.Int).SetString("46950820868899156662930047687818585632848591499744589407958293238635476079160", 10)
	y, _ := new(big.Int).SetString("5640078356564379163099075877009565129882514886557779369047442380624545832820", 10)
	point := append([]byte{4}, append(x.FillBytes(make([]byte, 32)), y.FillBytes(make([]byte, 32))...)...)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString("A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajabZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA==")
	if err != nil || len(sig) != 64 {
		t.Fatal("the vector's signature")
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	sum := sha256.Sum256(pae)
	if !ecdsa.Verify(pub, sum[:], r, s) {
		t.Fatal("the protocol's test-vector signature does not verify over PAE")
	}
	// A length spelled otherwise (the payload's characters, not bytes) is
	// another encoding.
	if string(PAE("t", []byte("é"))) != "DSSEv1 1 t 2 é" {
		t.Fatalf("LEN is not the byte length: %q", PAE("t", []byte("é")))
	}
}

func key(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("attest test key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

type fixture struct {
	store *receipt.Store
	keys  receipt.KeySet
	root  string
	step  string
	raw   map[string][]byte
	order []string
}

// newTree seals a run whose two steps are children, the second a child
// run with a step of its own; the first step names two artifacts.
func newTree(t *testing.T, k ed25519.PrivateKey) *fixture {
	t.Helper()
	signer, err := receipt.NewSigner(k)
	if err != nil {
		t.Fatal(err)
	}
	st, err := receipt.Open(filepath.Join(t.TempDir(), "receipts"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{store: st, keys: receipt.NewKeySet(signer.PublicKey()), raw: map[string][]byte{}}
	seal1 := func(b receipt.Body, root bool) receipt.ChildRef {
		b.SkillName, b.Outcome, b.StartedAt, b.SealedAt = "s", seal.OutcomeCompleted, "2026-01-02T03:04:05.000Z", "2026-01-02T03:04:06.000Z"
		r, raw, err := signer.Seal(b)
		if err != nil {
			t.Fatal(err)
		}
		if root {
			err = st.PutRoot(r, raw)
		} else {
			err = st.Put(r, raw)
		}
		if err != nil {
			t.Fatal(err)
		}
		f.raw[r.ID] = raw
		return receipt.SealedRef(r, raw)
	}
	grandchild := seal1(receipt.Body{Kind: receipt.KindStep, RunID: "run_child", StepID: "inner", StepKind: "tool"}, false)
	art := []receipt.Artifact{
		{Label: "output/report", Digest: canon.DigestBytes([]byte("report")), Bytes: 6, Ref: "art_0123456789abcdef0123456789abcdef"},
		{Label: "read", Digest: canon.DigestBytes([]byte("input")), Bytes: 5},
	}
	first := seal1(receipt.Body{Kind: receipt.KindStep, RunID: "run_1", StepID: "report", StepKind: "tool", Artifacts: art}, false)
	child := seal1(receipt.Body{Kind: receipt.KindRun, RunID: "run_child", OutputDigest: canon.DigestBytes([]byte(`{}`)), Children: []receipt.ChildRef{grandchild}}, false)
	root := seal1(receipt.Body{Kind: receipt.KindRun, RunID: "run_1", OutputDigest: canon.DigestBytes([]byte(`{"ok":true}`)), Children: []receipt.ChildRef{first, child}}, true)
	f.root, f.step = root.ReceiptID, first.ReceiptID
	f.order = []string{root.ReceiptID, first.ReceiptID, child.ReceiptID, grandchild.ReceiptID}
	return f
}

func (f *fixture) verify(t *testing.T) receipt.Report {
	rep := receipt.Verify(t.Context(), f.store, f.root, f.keys, receipt.Limits{})
	if rep.Status != receipt.StatusVerified {
		t.Fatalf("fixture tree: %+v", rep)
	}
	return rep
}

// The envelope verifies under the receipt's key over PAE, and its payload
// is an in-toto Statement v1 whose subject is the run's output, its
// artifacts and the root receipt, by sha256, and whose predicate is every
// receipt of the tree, whole, root first and depth first.
func TestAttestStatesTheTree(t *testing.T) {
	k := key("home")
	f := newTree(t, k)
	env, err := Attest(t.Context(), f.store.Get, f.verify(t), f.root, k)
	if err != nil {
		t.Fatal(err)
	}
	if env.PayloadType != PayloadType || len(env.Signatures) != 1 || env.Signatures[0].KeyID != receipt.KeyID(k.Public().(ed25519.PublicKey)) {
		t.Fatalf("envelope %+v", env)
	}
	payload, err := Open(env, k.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(env, key("other").Public().(ed25519.PublicKey)); err == nil {
		t.Fatal("the envelope opened under another key")
	}
	tampered := env
	tampered.PayloadType = "application/json"
	if _, err := Open(tampered, k.Public().(ed25519.PublicKey)); err == nil {
		t.Fatal("the signature does not cover the payload type")
	}
	if !canon.IsCanonical(payload) {
		t.Fatal("the payload is not canonical JSON")
	}
	var st struct {
		Type          string `json:"_type"`
		PredicateType string `json:"predicateType"`
		Subject       []struct {
			Name   string            `json:"name"`
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
		Predicate struct {
			Root     string            `json:"root"`
			Receipts []json.RawMessage `json:"receipts"`
		} `json:"predicate"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	if st.Type != "https://in-toto.io/Statement/v1" || st.PredicateType != PredicateType || st.Predicate.Root != f.root {
		t.Fatalf("statement head %q %q %q", st.Type, st.PredicateType, st.Predicate.Root)
	}
	hex := func(d string) string { h, _ := canon.DigestHex(d); return h }
	want := map[string]string{
		"art_0123456789abcdef0123456789abcdef": hex(canon.DigestBytes([]byte("report"))),
		f.step + "/read":                       hex(canon.DigestBytes([]byte("input"))),
		"output":                               hex(canon.DigestBytes([]byte(`{"ok":true}`))),
		"receipt":                              hex(f.root),
	}
	if len(st.Subject) != len(want) {
		t.Fatalf("subjects %+v, want %v", st.Subject, want)
	}
	for _, s := range st.Subject {
		if len(s.Digest) != 1 || s.Digest["sha256"] != want[s.Name] {
			t.Errorf("subject %s: %v, want sha256 %s", s.Name, s.Digest, want[s.Name])
		}
	}
	if len(st.Predicate.Receipts) != len(f.order) {
		t.Fatalf("%d receipts, want %d", len(st.Predicate.Receipts), len(f.order))
	}
	for i, raw := range st.Predicate.Receipts {
		if string(raw) != string(f.raw[f.order[i]]) {
			t.Errorf("receipts[%d] is not receipt %s as stored", i, f.order[i])
		}
	}
}

func codeOf(t *testing.T, err error) errcode.Code {
	t.Helper()
	var e *contract.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a coded error, got %v", err)
	}
	return e.Code
}

// Only a verified tree is attested, only with the key that signed it, and
// only within its bound.
func TestAttestRefuses(t *testing.T) {
	k := key("home")
	f := newTree(t, k)
	rep := f.verify(t)
	unverified := rep
	unverified.Status = receipt.StatusUnverified
	if _, err := Attest(t.Context(), f.store.Get, unverified, f.root, k); codeOf(t, err) != errcode.AttestationUnverified {
		t.Fatalf("an unverified tree: %v", err)
	}
	untrusted := receipt.Verify(t.Context(), f.store, f.root, receipt.NewKeySet(), receipt.Limits{})
	if _, err := Attest(t.Context(), f.store.Get, untrusted, f.root, k); codeOf(t, err) != errcode.AttestationUnverified {
		t.Fatalf("a tree no key is trusted for: %v", err)
	}
	// A report of one tree attests nothing outside it: here the report
	// of the child run's tree, and the first step beside it.
	sub := receipt.Report{Status: receipt.StatusVerified, ReceiptID: f.order[2]}
	if _, err := Attest(t.Context(), f.store.Get, sub, f.step, k); codeOf(t, err) != errcode.AttestationUnverified {
		t.Fatalf("a receipt outside the verified tree: %v", err)
	}
	if _, err := Attest(t.Context(), f.store.Get, rep, f.root, key("another home")); codeOf(t, err) != errcode.AttestationKeyMismatch {
		t.Fatalf("another key: %v", err)
	}
	if _, _, err := tree(t.Context(), f.store.Get, f.root, len(f.raw[f.root])+10); codeOf(t, err) != errcode.AttestationTooLarge {
		t.Fatalf("a tree over the byte bound: %v", err)
	}
	if _, _, err := tree(t.Context(), f.store.Get, f.root, MaxReceiptBytes); err != nil {
		t.Fatal(err)
	}
}

// A child's receipt is attested on its own: the subtree under it.
func TestAttestASubtree(t *testing.T) {
	k := key("home")
	f := newTree(t, k)
	env, err := Attest(t.Context(), f.store.Get, f.verify(t), f.order[2], k)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := Open(env, k.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	var st Statement
	if err := json.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	if st.Predicate.Root != f.order[2] || len(st.Predicate.Receipts) != 2 {
		t.Fatalf("subtree: root %s, %d receipts", st.Predicate.Root, len(st.Predicate.Receipts))
	}
}
