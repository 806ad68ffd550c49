package canon

import "testing"

// TestDigestRaw: the same value however spaced has one digest; bytes
// that do not parse are digested as given.
func TestDigestRaw(t *testing.T) {
	if DigestRaw([]byte(`{"b":1, "a":2}`)) != DigestRaw([]byte(`{"a":2,"b":1}`)) {
		t.Error("the same value spaced and ordered otherwise digests differently")
	}
	if got, want := DigestRaw([]byte(`{not json`)), DigestBytes([]byte(`{not json`)); got != want {
		t.Errorf("unparsable bytes: %s, want %s", got, want)
	}
}
