package jsonvalue

import (
	"reflect"
	"strings"
	"testing"
)

// TestDecodeGivesTheSharedShape reads one JSON value into the shared
// shape: integer literals int64, other numbers float64, at any depth.
func TestDecodeGivesTheSharedShape(t *testing.T) {
	v, err := Decode([]byte(` {"a": [1, 2.5, -3e2, "x", null, true], "b": {"c": 9007199254740991}} `))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": []any{int64(1), 2.5, -300.0, "x", nil, true},
		"b": map[string]any{"c": int64(MaxSafeInteger)},
	}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("decoded %#v\nwant %#v", v, want)
	}
}

// TestDecodeRefuses refuses what is not exactly one JSON value, and an
// integer no JSON reader holds exactly, without quoting the document.
func TestDecodeRefuses(t *testing.T) {
	for doc, says := range map[string]string{
		``:                    "not valid JSON",
		`{"a":`:               "not valid JSON",
		`1 2`:                 "trailing data",
		`{"a":1}{}`:           "trailing data",
		`9007199254740992`:    "beyond ±(2^53-1)",
		`[-9007199254740992]`: "beyond ±(2^53-1)",
		`1e999`:               "out of range",
	} {
		_, err := Decode([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("Decode(%q) = %v, want an error saying %q", doc, err, says)
		}
	}
}

// TestLooksLikeNumber follows JSON's number grammar, with YAML's leading
// '+' allowed.
func TestLooksLikeNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "+1": true, "12.50": true, "1e5": true, "1E-5": true, "-2.5e+3": true,
		"": false, "01": false, "1.": false, ".5": false, "1e": false, "0x10": false, "1_000": false, "--1": false, "inf": false,
	} {
		if got := LooksLikeNumber(s); got != want {
			t.Errorf("LooksLikeNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestIsDecimalInteger accepts plain integers only, no leading zero.
func TestIsDecimalInteger(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "-12": true, "7": true, "": false, "-": false, "01": false, "1.0": false, "+1": false} {
		if got := IsDecimalInteger(s); got != want {
			t.Errorf("IsDecimalInteger(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCloneSharesNothing deep-copies maps and lists, so a default handed
// to one run cannot be changed through another.
func TestCloneSharesNothing(t *testing.T) {
	orig := map[string]any{"l": []any{map[string]any{"k": "v"}}, "n": int64(1)}
	c := Clone(orig).(map[string]any)
	c["l"].([]any)[0].(map[string]any)["k"] = "changed"
	c["n"] = int64(2)
	if orig["l"].([]any)[0].(map[string]any)["k"] != "v" || orig["n"] != int64(1) {
		t.Fatalf("changing the clone changed the original: %#v", orig)
	}
}

// TestKindNamesTheShape names a value's JSON type, never its content.
func TestKindNamesTheShape(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{{nil, "null"}, {true, "a boolean"}, {"secret", "a string"}, {int64(1), "an integer"}, {1.5, "a number"}, {map[string]any{}, "an object"}, {[]any{}, "an array"}} {
		if got := Kind(c.v); got != c.want {
			t.Errorf("Kind(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestValidPointer(t *testing.T) {
	for p, want := range map[string]bool{
		"": true, "/": true, "/a/b": true, "/a~0b/~1c": true, "/0": true,
		"a": false, "/a~": false, "/a~2": false, "~0": false,
	} {
		if ValidPointer(p) != want {
			t.Errorf("ValidPointer(%q) = %v", p, !want)
		}
	}
}
