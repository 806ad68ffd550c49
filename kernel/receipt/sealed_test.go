package receipt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// CheckSealed accepts a sealed receipt, however it is formatted, and
// refuses one unsigned, re-signed by nobody, altered or not a receipt, each
// with its code.
func TestCheckSealed(t *testing.T) {
	s := newTestSigner(t, "sealed")
	r, whole, err := s.Seal(stepBody("run-1", "greet"))
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, whole, "", "  "); err != nil {
		t.Fatal(err)
	}
	got, err := CheckSealed(indented.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Receipt.ID != r.ID || !bytes.Equal(got.Canonical, whole) || got.ContentHash != canon.DigestBytes(whole) || !got.Signer.Equal(s.PublicKey()) {
		t.Fatalf("checked %+v", got)
	}

	mutate := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(whole, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	other := newTestSigner(t, "other")
	for name, tc := range map[string]struct {
		data []byte
		code errcode.Code
	}{
		"not json":    {[]byte("{"), errcode.ReceiptMalformed},
		"not receipt": {[]byte(`{"hello":1}`), errcode.ReceiptMalformed},
		"unsigned":    {mutate(func(m map[string]any) { delete(m, "signature") }), errcode.SignatureInvalid},
		"empty sig":   {mutate(func(m map[string]any) { m["signature"].(map[string]any)["value"] = "" }), errcode.SignatureInvalid},
		"another key": {mutate(func(m map[string]any) {
			m["signature"].(map[string]any)["public_key"] = base64.StdEncoding.EncodeToString(other.PublicKey())
		}), errcode.SignatureInvalid},
		"altered body": {mutate(func(m map[string]any) { m["body"].(map[string]any)["skill_name"] = "other" }), errcode.ReceiptDigestMismatch},
		"too large":    {[]byte(`"` + strings.Repeat("a", maxReceiptSize) + `"`), errcode.ReceiptMalformed},
	} {
		var re *Error
		if _, err := CheckSealed(tc.data); !errors.As(err, &re) || re.Code != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
}
