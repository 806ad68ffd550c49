package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// bodyPrefix opens every canonical receipt: "body" sorts first among the
// four members JCS orders by code unit, and no other member is admitted.
const bodyPrefix = `{"body":`

// decodeStored decodes a stored receipt's canonical bytes once, strictly, and
// returns it with the exact bytes of its body. Verification hashes and checks
// the signature over those bytes, never over a re-encoding of the struct, so
// nothing the decoder drops or normalises can slip past the digest.
func decodeStored(canonical []byte) (Receipt, []byte, error) {
	var r Receipt
	if err := decodeStrict(canonical, &r); err != nil {
		return Receipt{}, nil, refuse(errcode.ReceiptMalformed, "stored receipt is not a runx.receipt.v1 document", err)
	}
	if r.Schema != Schema {
		return Receipt{}, nil, refuse(errcode.ReceiptMalformed, fmt.Sprintf("schema %q is not %s; this runx does not read it", r.Schema, Schema), nil)
	}
	body, ok := bodySpan(canonical)
	if !ok {
		return Receipt{}, nil, refuse(errcode.ReceiptMalformed, "stored receipt does not open with its body object", nil)
	}
	return r, body, nil
}

// bodySpan returns the body object of a canonical receipt. It only has to
// find the object's end in JSON the strict decode has already accepted: it
// tracks nesting outside strings and skips escaped characters inside them.
// Because JCS encodes every member independently, these bytes are the body's
// canonical form.
func bodySpan(canonical []byte) ([]byte, bool) {
	if !bytes.HasPrefix(canonical, []byte(bodyPrefix+"{")) {
		return nil, false
	}
	start := len(bodyPrefix)
	depth, inString := 0, false
	for i := start; i < len(canonical); i++ {
		c := canonical[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return canonical[start : i+1], true
			}
		}
	}
	return nil, false
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

// Decode reads a receipt document strictly (no unknown fields, one
// document). It only decodes: Verify is what proves a receipt.
func Decode(data []byte) (*Receipt, error) {
	var r Receipt
	if err := decodeStrict(data, &r); err != nil {
		return nil, refuse(errcode.ReceiptMalformed, "not a runx.receipt.v1 document", err)
	}
	return &r, nil
}
