package notary

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// FormatPublicKey is a notary public key as a PEM PUBLIC KEY block (PKIX),
// what `runx verify --notary-key` reads.
func FormatPublicKey(pub ed25519.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic("notary: an ed25519 public key always marshals: " + err.Error())
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// maxKeyBytes bounds a key file; a PEM ed25519 public key is 113 bytes.
const maxKeyBytes = 4 << 10

// ParsePublicKey reads a PEM PUBLIC KEY block holding an ed25519 key.
func ParsePublicKey(data []byte) (ed25519.PublicKey, error) {
	if len(data) > maxKeyBytes {
		return nil, contract.Errorf(errcode.NotaryKeyInvalid, "a notary key file is at most %d bytes", maxKeyBytes)
	}
	block, rest := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" || strings.TrimSpace(string(rest)) != "" {
		return nil, contract.Errorf(errcode.NotaryKeyInvalid, "the notary key is not one PEM PUBLIC KEY block")
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, contract.Errorf(errcode.NotaryKeyInvalid, "the notary key does not parse: %v", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, contract.Errorf(errcode.NotaryKeyInvalid, "the notary key is not an ed25519 key")
	}
	return pub, nil
}

// KeyID names a notary key: "sha256:" and the hex of sha256 over its 32
// bytes (the same naming as a receipt signer's key).
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Origin is the name of the log a notary key signs: its checkpoints'
// first line and their signature's name. It is derived from the key alone,
// so a log is named the same wherever its server listens.
func Origin(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "runx-notary/" + hex.EncodeToString(sum[:8])
}
