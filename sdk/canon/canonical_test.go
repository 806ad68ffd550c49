package canon

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"keys sorted", `{"b":1,"a":2,"c":{"z":0,"y":[3,2,1]}}`, `{"a":2,"b":1,"c":{"y":[3,2,1],"z":0}}`},
		{"whitespace dropped", " {\n\t\"a\" : [ 1 , 2 ] }\n", `{"a":[1,2]}`},
		{"integer-valued float", `1.0`, `1`},
		{"trailing zeros", `[1.500, 0.10, -0.0]`, `[1.5,0.1,0]`},
		{"large exponent", `1e21`, `1e+21`},
		{"below exponent threshold", `1e20`, `100000000000000000000`},
		{"small exponent", `0.000001`, `0.000001`},
		{"tiny", `1e-7`, `1e-7`},
		{"shortest round trip", `0.30000000000000004`, `0.30000000000000004`},
		{"literals", `[true,false,null]`, `[true,false,null]`},
		{"non-ascii unescaped", `"\u00e9\u20ac"`, `"é€"`},
		{"control escaped", `"\u000f\u001f"`, `"\u000f\u001f"`},
		{"short escapes", `"\u0008\u0009\u000a\u000c\u000d"`, `"\b\t\n\f\r"`},
		{"solidus not escaped", `"a\/b"`, `"a/b"`},
		{"html not escaped", `"\u003c\u003e\u0026"`, `"<>&"`},
		{"line separator literal", `"\u2028"`, "\"\u2028\""},
		{"surrogate pair", `"\ud83d\ude00"`, `"😀"`},
		{
			// RFC 8785 §3.2.3: members sort by UTF-16 code units, so the
			// emoji (high surrogate D83D) sorts before U+FB33.
			"utf-16 key order",
			`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`,
			"{\"\\r\":2,\"1\":4,\"\u0080\":6,\"ö\":7,\"€\":1,\"😀\":5,\"\ufb33\":3}",
		},
		{"nested arrays of objects", `[{"b":[{"d":1,"c":2}],"a":null}]`, `[{"a":null,"b":[{"c":2,"d":1}]}]`},
		{"empty containers", `{"b":{},"a":[]}`, `{"a":[],"b":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("CanonicalJSON(%q): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Fatalf("CanonicalJSON(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			// Canonical form is a fixed point.
			again, err := CanonicalJSON(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalJSONRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"duplicate key", []byte(`{"a":1,"a":2}`)},
		{"trailing data", []byte(`{} {}`)},
		{"lone surrogate", []byte(`"\ud800"`)},
		{"invalid utf-8", []byte("\"\xff\"")},
		{"malformed", []byte(`{"a":}`)},
		{"nan literal", []byte(`NaN`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := CanonicalJSON(tt.in); err == nil {
				t.Fatalf("CanonicalJSON(%q) = %s, want an error", tt.in, got)
			} else if !strings.HasPrefix(err.Error(), "canonical json") {
				t.Fatalf("error %q does not say where it came from", err)
			}
		})
	}
}

func TestCanonicalGoValues(t *testing.T) {
	type inner struct {
		Z string `json:"z"`
		A int    `json:"a"`
	}
	type outer struct {
		Name  string          `json:"name"`
		Skip  string          `json:"skip,omitempty"`
		Inner inner           `json:"inner"`
		Extra map[string]any  `json:"extra"`
		Raw   json.RawMessage `json:"raw"`
	}
	v := outer{
		Name:  "<hello>",
		Inner: inner{Z: "é", A: 7},
		Extra: map[string]any{"f": 1.0, "big": 1e21, "list": []any{"x", 2.5}},
		Raw:   json.RawMessage(`{ "q" : 1.0 }`),
	}
	got, err := Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"extra":{"big":1e+21,"f":1,"list":["x",2.5]},"inner":{"a":7,"z":"é"},"name":"<hello>","raw":{"q":1}}`
	if string(got) != want {
		t.Fatalf("Canonical\n got %s\nwant %s", got, want)
	}
}

func TestCanonicalRefusesUnencodable(t *testing.T) {
	if _, err := Canonical(map[string]any{"c": make(chan int)}); err == nil {
		t.Fatal("Canonical accepted a channel")
	}
}

func TestCanonicalRawMessageMatchesCanonicalJSON(t *testing.T) {
	raw := []byte(`{"b":[1.0,2],"a":"\u00e9"}`)
	viaValue, err := Canonical(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	viaBytes, err := CanonicalJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	if string(viaValue) != string(viaBytes) {
		t.Fatalf("RawMessage %s != CanonicalJSON %s", viaValue, viaBytes)
	}
}

// Values encoding/json already writes canonically take the fast path; the
// result must not differ from the JCS pass either way.
func TestCanonicalFastPathMatchesJCS(t *testing.T) {
	type sorted struct {
		A string         `json:"a"`
		B float64        `json:"b"`
		C map[string]any `json:"c"`
	}
	values := []any{
		sorted{A: "<&>", B: 1e21, C: map[string]any{"x": 1.0, "\u2028": "\b\f"}},
		sorted{A: "\xff", B: 0.1},
		map[string]any{"\ufb33": 1, "😀": 2},      // Go sorts these by bytes, JCS by UTF-16
		map[string]int64{"big": 1 << 60},         // not an exact double
		[]any{"é", math.Copysign(0, -1), 5e-324}, // a negative zero
	}
	for _, v := range values {
		got, err := Canonical(v)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := CanonicalJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Canonical(%#v)\n got %s\nwant %s", v, got, want)
		}
	}
}
