package native

import (
	"encoding/json"
	"testing"
)

// A kernel-owned tool refuses an input it does not declare and an input of
// the wrong type or out of range, each with its code, naming the input.
func TestToolInputsRefused(t *testing.T) {
	if bad := onlyInputs("t", map[string]any{"a": 1, "zz": 2, "b": 3}, "a"); bad == nil || bad.Code != "native_input_unknown" || bad.Message != "t takes no input b, zz" {
		t.Errorf("unknown inputs: %+v", bad)
	}
	if bad := onlyInputs("t", map[string]any{"a": 1}, "a", "b"); bad != nil {
		t.Errorf("declared inputs refused: %+v", bad)
	}
	if _, bad := stringInput("t", map[string]any{"s": 3.0}, "s"); bad == nil || bad.Code != "native_input_invalid" {
		t.Errorf("a number as a string input: %+v", bad)
	}
	if s, bad := stringInput("t", map[string]any{}, "s"); s != "" || bad != nil {
		t.Errorf("an absent string input: %q %+v", s, bad)
	}
	for name, tc := range map[string]struct {
		v    any
		want int64
		ok   bool
	}{
		"absent":       {nil, 10, true},
		"float whole":  {float64(5), 5, true},
		"json number":  {json.Number("7"), 7, true},
		"fraction":     {1.5, 0, false},
		"below range":  {float64(0), 0, false},
		"above range":  {float64(101), 0, false},
		"not a number": {"5", 0, false},
	} {
		in := map[string]any{}
		if tc.v != nil {
			in["n"] = tc.v
		}
		n, bad := intInput("t", in, "n", 10, 1, 100)
		if tc.ok != (bad == nil) || (tc.ok && n != tc.want) || (!tc.ok && bad.Code != "native_input_invalid") {
			t.Errorf("%s: got %d, %+v", name, n, bad)
		}
	}
}

// receipt.read's json_pointer is RFC 6901: escapes decoded, array indexes
// without leading zeros, and a pointer that selects nothing is an error.
func TestSelectPointer(t *testing.T) {
	doc := map[string]any{"a/b": map[string]any{"m~n": []any{"x", "y"}}, "": "empty"}
	for ptr, want := range map[string]any{"/a~1b/m~0n/1": "y", "/": "empty", "": doc} {
		got, err := selectPointer(doc, ptr)
		if err != nil {
			t.Errorf("%q: %v", ptr, err)
			continue
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("%q selected %s, want %s", ptr, a, b)
		}
	}
	for _, ptr := range []string{"a", "/missing", "/a~1b/m~0n/2", "/a~1b/m~0n/01", "/a~1b/m~0n/-1", "/a~1b/m~0n/0/deeper"} {
		if got, err := selectPointer(doc, ptr); err == nil {
			t.Errorf("%q selected %v", ptr, got)
		}
	}
}
