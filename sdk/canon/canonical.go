package canon

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// Profile names the canonical encoding every runx digest is taken over.
const Profile = "runx.stable-json.v1"

// Canonical encodes v with encoding/json and then rewrites the result in
// RFC 8785 form: object members sorted by UTF-16 code units, no insignificant
// whitespace, numbers in their shortest ECMAScript form and strings with only
// the escapes JCS requires.
//
// encoding/json rules apply first: struct tags and omitempty decide which
// fields exist, and a []byte value becomes a base64 string. To canonicalise
// bytes that already hold a JSON document, use CanonicalJSON.
//
// encoding/json writes map keys sorted and struct fields in declaration
// order, so a value whose fields are declared in JCS order often encodes
// canonically already; IsCanonical spots that and the JCS pass is skipped.
func Canonical(v any) ([]byte, error) {
	if out, ok := plainCanonical(v); ok {
		return out, nil
	}
	return encodedCanonical(v)
}

// encodedCanonical is Canonical through encoding/json and, when its output
// is not canonical already, a JCS pass.
func encodedCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // JCS writes <, > and & as themselves
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("canonical json: encode: %w", err)
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if IsCanonical(raw) {
		return raw, nil
	}
	return CanonicalJSON(raw)
}

// CanonicalJSON rewrites one JSON document in RFC 8785 form. It refuses
// anything JCS cannot give a single meaning to: malformed JSON, duplicate
// object keys, invalid UTF-8 and lone surrogates.
//
// Because JCS encodes each nested value independently of its surroundings,
// any member of a canonical document is itself canonical; receipt
// verification relies on that to hash a receipt's body straight out of the
// canonical receipt.
func CanonicalJSON(raw []byte) ([]byte, error) {
	if raw == nil {
		// jcs treats nil as "no data"; say so in our own words.
		return nil, fmt.Errorf("canonical json: empty document")
	}
	if out, ok := fastCanonical(raw); ok {
		return out, nil
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return out, nil
}
