package receipt

import (
	"crypto/ed25519"
	"fmt"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Sealed is one receipt checked on its own, outside any store: what a
// notary accepts.
type Sealed struct {
	Receipt *Receipt
	// Canonical is the receipt's canonical bytes, the bytes a parent
	// commits and a notary counter-seals.
	Canonical []byte
	// ContentHash is the digest of Canonical (sha256:<hex>).
	ContentHash string
	// Signer is the key the receipt names, which its signature verifies
	// under; whether anyone trusts it is another question.
	Signer ed25519.PublicKey
}

// CheckSealed checks one sealed receipt document: at most the size a
// receipt may be, JSON that canonicalizes, a runx.receipt.v1 document
// decoded strictly, an id that is the digest of its canonical body, a
// signature that verifies over that body under the key the receipt names,
// and a body whose fields hold. It does not walk children: they are other
// receipts.
func CheckSealed(data []byte) (*Sealed, error) {
	if len(data) > maxReceiptSize {
		return nil, refuse(errcode.ReceiptMalformed, fmt.Sprintf("a receipt holds at most %d bytes; this is %d", maxReceiptSize, len(data)), nil)
	}
	c, err := canon.CanonicalJSON(data)
	if err != nil {
		return nil, refuse(errcode.ReceiptMalformed, "the receipt is not json", err)
	}
	r, body, err := decodeStored(c)
	if err != nil {
		return nil, err
	}
	if got := canon.DigestBytes(body); got != r.ID {
		return nil, refuse(errcode.ReceiptDigestMismatch, fmt.Sprintf("the body digests to %s, not to the receipt's id %s", got, r.ID), nil)
	}
	pub, err := checkSignature(body, r.Signature)
	if err != nil {
		return nil, refuse(errcode.SignatureInvalid, "the receipt's signature does not hold: "+err.Error(), nil)
	}
	if err := validateFields(&r.Body); err != nil {
		return nil, refuse(errcode.ReceiptBodyInvalid, problemMessage(err), nil)
	}
	return &Sealed{Receipt: &r, Canonical: c, ContentHash: canon.DigestBytes(c), Signer: pub}, nil
}
