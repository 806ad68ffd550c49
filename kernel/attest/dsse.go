package attest

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strconv"
)

// Envelope is a DSSE envelope in its JSON form.
type Envelope struct {
	Payload     string      `json:"payload"` // base64 (standard, padded)
	PayloadType string      `json:"payloadType"`
	Signatures  []Signature `json:"signatures"`
}

// Signature is one of an envelope's signatures. KeyID is a hint only:
// DSSE authenticates the payload type and payload, never the key id.
type Signature struct {
	KeyID string `json:"keyid,omitempty"`
	Sig   string `json:"sig"` // base64 (standard, padded)
}

// PAE is DSSE's pre-authentication encoding, what a signature covers:
// "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, each LEN the byte
// length in ASCII decimal with no leading zeros.
func PAE(payloadType string, payload []byte) []byte {
	b := make([]byte, 0, len("DSSEv1")+len(payloadType)+len(payload)+24)
	b = append(b, "DSSEv1 "...)
	b = strconv.AppendInt(b, int64(len(payloadType)), 10)
	b = append(b, ' ')
	b = append(b, payloadType...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(payload)), 10)
	b = append(b, ' ')
	return append(b, payload...)
}

// Sign wraps payload in an envelope signed with key over PAE, its key id
// the hint keyID.
func Sign(payloadType string, payload []byte, key ed25519.PrivateKey, keyID string) Envelope {
	sig := ed25519.Sign(key, PAE(payloadType, payload))
	return Envelope{
		Payload:     base64.StdEncoding.EncodeToString(payload),
		PayloadType: payloadType,
		Signatures:  []Signature{{KeyID: keyID, Sig: base64.StdEncoding.EncodeToString(sig)}},
	}
}

// Open returns an envelope's payload when one of its signatures verifies
// under pub over PAE. DSSE lets a signer use standard or URL-safe base64,
// so both are read.
func Open(env Envelope, pub ed25519.PublicKey) ([]byte, error) {
	payload, err := decode64(env.Payload)
	if err != nil {
		return nil, errors.New("the envelope's payload is not base64")
	}
	pae := PAE(env.PayloadType, payload)
	for _, s := range env.Signatures {
		if sig, err := decode64(s.Sig); err == nil && ed25519.Verify(pub, pae, sig) {
			return payload, nil
		}
	}
	return nil, errors.New("no signature of the envelope verifies under the key")
}

func decode64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.URLEncoding.DecodeString(s)
}
