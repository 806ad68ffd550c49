package receipt

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Signer seals receipt bodies with one ed25519 key. It is safe for
// concurrent use.
type Signer struct {
	key       ed25519.PrivateKey
	pub       ed25519.PublicKey
	keyID     string
	pubBase64 string
}

// NewSigner signs with key, typically LoadOrCreateKey(home) or, for runx
// test, FixtureKey().
func NewSigner(key ed25519.PrivateKey) (*Signer, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("new signer: not an ed25519 private key")
	}
	pub := key.Public().(ed25519.PublicKey)
	return &Signer{key: key, pub: pub, keyID: KeyID(pub), pubBase64: EncodePublicKey(pub)}, nil
}

// PublicKey is the key a verifier must trust for this signer's receipts.
func (s *Signer) PublicKey() ed25519.PublicKey { return s.pub }

// KeyID is KeyID(s.PublicKey()).
func (s *Signer) KeyID() string { return s.keyID }

// Seal validates body, signs its canonical bytes and returns the receipt and
// the canonical bytes of the whole receipt, which are what the store keeps and
// what a parent commits through ChildRefOf.
//
// The returned Receipt shares body's slices, maps and pointers; changing them
// afterwards makes the struct disagree with the bytes, and the bytes win.
func (s *Signer) Seal(body Body) (*Receipt, []byte, error) {
	if err := validateBody(&body); err != nil {
		return nil, nil, err
	}
	bodyBytes, err := canon.Canonical(body)
	if err != nil {
		return nil, nil, fmt.Errorf("seal receipt: %w", err)
	}
	id := canon.DigestBytes(bodyBytes)
	sig := Signature{
		Alg:       SignatureAlg,
		KeyID:     s.keyID,
		PublicKey: s.pubBase64,
		Value:     base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, bodyBytes)),
	}
	whole := assemble(bodyBytes, id, sig)
	if len(whole) > maxReceiptSize {
		return nil, nil, bodyInvalid(fmt.Sprintf("the receipt would be %d bytes; a receipt holds at most %d", len(whole), maxReceiptSize))
	}
	return &Receipt{Schema: Schema, ID: id, Body: body, Signature: sig}, whole, nil
}

// assemble writes the canonical receipt around the canonical body instead of
// encoding the whole receipt again, which halves the cost of a seal. It is
// canonical by construction: the members are in JCS order (body, id, schema,
// signature; alg, key_id, public_key, value) and every string outside the
// body is hex, base64 or a fixed ASCII name, none of which JCS escapes.
// TestSealBindsBodyAndSignature checks it against canon.Canonical.
func assemble(body []byte, id string, sig Signature) []byte {
	const (
		afterBody = `,"id":"`
		afterID   = `","schema":"` + Schema + `","signature":{"alg":"`
		afterAlg  = `","key_id":"`
		afterKey  = `","public_key":"`
		afterPub  = `","value":"`
		end       = `"}}`
	)
	// Sized exactly, so the receipt is one allocation: a seal's largest.
	n := len(bodyPrefix) + len(body) + len(afterBody) + len(id) + len(afterID) + len(sig.Alg) +
		len(afterAlg) + len(sig.KeyID) + len(afterKey) + len(sig.PublicKey) + len(afterPub) + len(sig.Value) + len(end)
	b := make([]byte, 0, n)
	b = append(b, bodyPrefix...)
	b = append(b, body...)
	b = append(b, afterBody...)
	b = append(b, id...)
	b = append(b, afterID...)
	b = append(b, sig.Alg...)
	b = append(b, afterAlg...)
	b = append(b, sig.KeyID...)
	b = append(b, afterKey...)
	b = append(b, sig.PublicKey...)
	b = append(b, afterPub...)
	b = append(b, sig.Value...)
	return append(b, end...)
}

// SealedRef is ChildRefOf for a receipt and the bytes Seal just returned
// with it: those are canonical by construction (assemble), so they are
// hashed as they are instead of being parsed and canonicalised again.
// TestSealedRefIsChildRefOf holds the two equal.
func SealedRef(r *Receipt, canonical []byte) ChildRef {
	return ChildRef{ReceiptID: r.ID, SignedDigest: canon.DigestBytes(canonical)}
}

// ChildRefOf is the commitment a parent body makes to a sealed child, given
// the child's canonical receipt bytes as Seal returned them or the store holds
// them. The bytes are canonicalised again so the commitment matches what a
// verifier computes even if they were reformatted on the way.
func ChildRefOf(receiptBytes []byte) (ChildRef, error) {
	c, err := canon.CanonicalJSON(receiptBytes)
	if err != nil {
		return ChildRef{}, refuse(errcode.ReceiptMalformed, "child receipt is not json", err)
	}
	var head struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(c, &head); err != nil {
		return ChildRef{}, refuse(errcode.ReceiptMalformed, "child receipt is not a json object", err)
	}
	if !canon.ValidDigest(head.ID) {
		return ChildRef{}, refuse(errcode.ReceiptIDInvalid, "child receipt has no valid id", nil)
	}
	return ChildRef{ReceiptID: head.ID, SignedDigest: canon.DigestBytes(c)}, nil
}
