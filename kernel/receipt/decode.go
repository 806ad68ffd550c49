package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// envelope is a stored receipt with its body kept as the exact bytes that
// were hashed and signed. Verification works on these bytes, never on a
// re-encoding of the decoded struct, so nothing a decoder drops or normalises
// can slip past the digest.
type envelope struct {
	Schema    string          `json:"schema"`
	ID        string          `json:"id"`
	Body      json.RawMessage `json:"body"`
	Signature Signature       `json:"signature"`
}

// decodeEnvelope reads the outer receipt. canonical must be canonical JSON,
// which makes the body's raw bytes canonical too (JCS encodes every member
// independently of its surroundings).
func decodeEnvelope(canonical []byte) (envelope, error) {
	var env envelope
	if err := decodeStrict(canonical, &env); err != nil {
		return envelope{}, refuse(CodeMalformed, "stored receipt is not a runx.receipt.v1 document", err)
	}
	if env.Schema != Schema {
		return envelope{}, refuse(CodeMalformed, fmt.Sprintf("schema %q is not %s; this runx does not read it", env.Schema, Schema), nil)
	}
	if len(env.Body) == 0 {
		return envelope{}, refuse(CodeMalformed, "stored receipt has no body", nil)
	}
	return env, nil
}

// decodeBody reads a body strictly: a field runx.receipt.v1 does not define is
// refused rather than ignored, so what runx shows is all that was signed.
func decodeBody(raw []byte) (Body, error) {
	var b Body
	if err := decodeStrict(raw, &b); err != nil {
		return Body{}, refuse(CodeMalformed, "receipt body does not match runx.receipt.v1", err)
	}
	return b, nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the document")
	}
	return nil
}
