package receipt

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestSealBindsBodyAndSignature(t *testing.T) {
	s := newTestSigner(t, "seal")
	body := stepBody("run-1", "greet")
	body.Runtime = &Runtime{RunxVersion: "0.1.0", Plugin: &PluginRef{Name: "fs", Version: "1.2.3", Protocol: 1}}
	body.Process = &Process{ArgvDigest: canon.DigestBytes([]byte("argv")), ExitCode: 0, DurationMS: 12}
	body.Extra = map[string]any{"approvals": []any{"a"}}

	r, whole, err := s.Seal(body)
	if err != nil {
		t.Fatal(err)
	}
	bodyBytes, err := canon.Canonical(body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != Schema || r.ID != canon.DigestBytes(bodyBytes) {
		t.Fatalf("schema %q id %s; want %s and the body digest", r.Schema, r.ID, Schema)
	}
	sig, err := base64.StdEncoding.DecodeString(r.Signature.Value)
	if err != nil || !ed25519.Verify(s.PublicKey(), bodyBytes, sig) {
		t.Fatalf("signature does not verify over the canonical body (%v)", err)
	}
	if r.Signature.Alg != "ed25519" || r.Signature.KeyID != KeyID(s.PublicKey()) ||
		r.Signature.PublicKey != base64.StdEncoding.EncodeToString(s.PublicKey()) {
		t.Fatalf("signature metadata %+v", r.Signature)
	}
	// The bytes are the canonical form of the returned struct.
	again, err := canon.Canonical(r)
	if err != nil || !bytes.Equal(again, whole) {
		t.Fatalf("returned bytes are not canonical(receipt): %v", err)
	}
	var back Receipt
	if err := json.Unmarshal(whole, &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != r.ID || back.Body.Process.DurationMS != 12 || back.Body.Runtime.Plugin.Protocol != 1 {
		t.Fatalf("round trip lost data: %+v", back)
	}
}

func TestSealIsDeterministic(t *testing.T) {
	s := newTestSigner(t, "det")
	_, a, err := s.Seal(stepBody("run-1", "x"))
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := s.Seal(stepBody("run-1", "x"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("sealing the same body twice gave different bytes")
	}
}

// TestFixtureReceiptGolden pins the bytes runx test produces for a fixed
// body. If it changes, every published fixture receipt changes with it.
func TestFixtureReceiptGolden(t *testing.T) {
	const wantKeyID = "sha256:67c640683813435b36c8aabebeb0b59dc00dc1eef3437962d097d249451332f7"
	const wantReceiptID = "sha256:0d4472ff635f09d311529a7a8dcb8209212c55388f7b5c77789f4d7e3b858170"
	const wantSignedDigest = "sha256:698497faf0830040b72e2722ba0ab6d26a71d9ee26966ba352d27ecc76dbdb5a"

	s, err := NewSigner(FixtureKey())
	if err != nil {
		t.Fatal(err)
	}
	if s.KeyID() != wantKeyID {
		t.Fatalf("fixture key id %s, want %s", s.KeyID(), wantKeyID)
	}
	x := sealBody(t, s, runBody("run-golden"))
	if x.r.ID != wantReceiptID || x.ref.SignedDigest != wantSignedDigest {
		t.Fatalf("fixture receipt id %s signed digest %s\nbytes %s", x.r.ID, x.ref.SignedDigest, x.bytes)
	}
}

func TestSealRefusesInvalidBody(t *testing.T) {
	ref := ChildRef{ReceiptID: canon.DigestBytes([]byte("a")), SignedDigest: canon.DigestBytes([]byte("b"))}
	tests := []struct {
		name   string
		mutate func(*Body)
	}{
		{"unknown kind", func(b *Body) { b.Kind = "job" }},
		{"step without step id", func(b *Body) { b.StepID = "" }},
		{"no run id", func(b *Body) { b.RunID = "" }},
		{"no skill name", func(b *Body) { b.SkillName = "" }},
		{"unknown outcome", func(b *Body) { b.Outcome = "paused" }},
		{"empty outcome", func(b *Body) { b.Outcome = "" }},
		{"started not utc", func(b *Body) { b.StartedAt = "2026-01-02T03:04:05.000+01:00" }},
		{"started without millis", func(b *Body) { b.StartedAt = "2026-01-02T03:04:05Z" }},
		{"sealed with micros", func(b *Body) { b.SealedAt = "2026-01-02T03:04:06.250000Z" }},
		{"sealed before started", func(b *Body) { b.SealedAt = "2026-01-02T03:04:04.000Z" }},
		{"bad package digest", func(b *Body) { b.PackageDigest = "sha256:abc" }},
		{"upper-case output digest", func(b *Body) { b.OutputDigest = "sha256:" + string(bytes.Repeat([]byte("A"), 64)) }},
		{"bad argv digest", func(b *Body) { b.Process = &Process{ArgvDigest: "argv"} }},
		{"bad child id", func(b *Body) { b.Children = []ChildRef{{ReceiptID: "x", SignedDigest: ref.SignedDigest}} }},
		{"bad child signed digest", func(b *Body) { b.Children = []ChildRef{{ReceiptID: ref.ReceiptID}} }},
		{"child committed twice", func(b *Body) { b.Children = []ChildRef{ref, ref} }},
		{"larger than any verifier reads", func(b *Body) { b.Extra = map[string]any{"blob": strings.Repeat("a", maxReceiptSize)} }},
	}
	s := newTestSigner(t, "refuse")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := stepBody("run-1", "s")
			tt.mutate(&b)
			r, whole, err := s.Seal(b)
			if r != nil || whole != nil {
				t.Fatal("Seal returned a receipt for an invalid body")
			}
			wantCode(t, err, errcode.ReceiptBodyInvalid)
		})
	}
}

func TestChildRefOf(t *testing.T) {
	s := newTestSigner(t, "child")
	_, whole, err := s.Seal(stepBody("run-1", "s"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ChildRefOf(whole)
	if err != nil {
		t.Fatal(err)
	}
	if ref.SignedDigest != canon.DigestBytes(whole) {
		t.Fatalf("signed digest %s, want digest of the canonical receipt", ref.SignedDigest)
	}
	// Reformatted bytes commit to the same thing.
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, whole, "", "  "); err != nil {
		t.Fatal(err)
	}
	ref2, err := ChildRefOf(pretty.Bytes())
	if err != nil || ref2 != ref {
		t.Fatalf("reformatted receipt gave %+v (%v), want %+v", ref2, err, ref)
	}

	_, err = ChildRefOf([]byte("not json"))
	wantCode(t, err, errcode.ReceiptMalformed)
	_, err = ChildRefOf([]byte(`{"id":"nope"}`))
	wantCode(t, err, errcode.ReceiptIDInvalid)
}

func TestNewSignerRefusesShortKey(t *testing.T) {
	if _, err := NewSigner(ed25519.PrivateKey{1, 2, 3}); err == nil {
		t.Fatal("NewSigner accepted a 3-byte key")
	}
}

func TestFormatTime(t *testing.T) {
	s := newTestSigner(t, "time")
	got := FormatTime(mustTime(t, "2026-05-06T07:08:09.123456789+02:00"))
	if got != "2026-05-06T05:08:09.123Z" {
		t.Fatalf("FormatTime = %s", got)
	}
	b := stepBody("run-1", "s")
	b.StartedAt, b.SealedAt = got, got
	if _, _, err := s.Seal(b); err != nil {
		t.Fatalf("a FormatTime value was refused: %v", err)
	}
}

// The hand-assembled receipt must be exactly what JCS makes of the struct,
// whatever the body holds.
func TestSealBytesAreCanonical(t *testing.T) {
	s := newTestSigner(t, "assemble")
	odd := []string{"plain", "<html>&amp;", "é€😀", "quote\"back\\slash", "\u2028\u0001", "\ufb33 key"}
	for i, v := range odd {
		b := stepBody("run-"+v, v)
		b.SkillName = v
		b.Extra = map[string]any{v: []any{v, 1.5, nil, map[string]any{"id": v, "body": i}}}
		r, whole, err := s.Seal(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := canon.Canonical(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole, want) {
			t.Fatalf("body %q:\n got %s\nwant %s", v, whole, want)
		}
	}
}

// The receipt types are declared in JCS member order so that encoding/json
// writes them canonically and sealing skips the JCS pass. A field added out
// of order would still seal correctly, only slower; this says so.
func TestReceiptTypesEncodeCanonically(t *testing.T) {
	d := canon.DigestBytes([]byte("x"))
	body := Body{
		AuthorityDigest: d, Capability: "fs.read", Children: []ChildRef{{ReceiptID: d, SignedDigest: d}},
		ClosureDigest: d, ErrorCode: "e", Execution: "native", Extra: map[string]any{"a": 1, "b": "c"},
		InputsDigest: d, Kind: KindStep, Method: "m", Outcome: seal.OutcomeFailed, OutputDigest: d,
		PackageDigest: d, Process: &Process{ArgvDigest: d, DurationMS: 5, ExitCode: 1, Signal: "TERM"},
		Registry: &RegistryPackage{ContentDigest: d, Name: "w", Publisher: "acme", Registry: "https://r", TrustTier: "community", Version: "1.0.0"},
		RunID:    "r", Runtime: &Runtime{Plugin: &PluginRef{Name: "fs", Protocol: 1, Version: "1"}, RunxVersion: "0.1.0"},
		SealReason: "s", SealedAt: testSealed, SkillName: "k", StartedAt: testStarted, StepID: "i", StepKind: "tool",
	}
	r, _, err := newTestSigner(t, "order").Seal(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{body, r} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !canon.IsCanonical(raw) {
			t.Fatalf("%T does not encode in JCS member order:\n%s", v, raw)
		}
	}
}

// SealedRef skips parsing the bytes Seal returned; it must commit to them
// exactly as ChildRefOf, which a verifier's check follows, does.
func TestSealedRefIsChildRefOf(t *testing.T) {
	s := newTestSigner(t, "o")
	for _, body := range []Body{stepBody("r", "a"), runBody("r"), stepBody("r", "é\u2028<&>")} {
		x := sealBody(t, s, body)
		want, err := ChildRefOf(x.bytes)
		if err != nil {
			t.Fatal(err)
		}
		if got := SealedRef(x.r, x.bytes); got != want {
			t.Fatalf("SealedRef = %+v, ChildRefOf = %+v", got, want)
		}
	}
}
