package receipt

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
)

// strictBase64 refuses encodings with stray trailing bits, so a signature or
// key has exactly one spelling.
var strictBase64 = base64.StdEncoding.Strict()

// checkSignature verifies sig over the canonical body and returns the signing
// key. It says nothing about whether that key is trusted.
func checkSignature(body []byte, sig Signature) (ed25519.PublicKey, error) {
	if sig.Alg != SignatureAlg {
		return nil, fmt.Errorf("signature algorithm %q is not %s", sig.Alg, SignatureAlg)
	}
	pub, err := strictBase64.DecodeString(sig.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return nil, errors.New("public_key is not the base64 of a 32-byte ed25519 key")
	}
	if sig.KeyID != KeyID(pub) {
		return nil, fmt.Errorf("key_id %s does not name the public key, which is %s", sig.KeyID, KeyID(pub))
	}
	value, err := strictBase64.DecodeString(sig.Value)
	if err != nil || len(value) != ed25519.SignatureSize {
		return nil, errors.New("signature value is not the base64 of a 64-byte ed25519 signature")
	}
	if !ed25519.Verify(pub, body, value) {
		return nil, errors.New("signature does not verify over the canonical body")
	}
	return pub, nil
}
