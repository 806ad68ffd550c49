package testrun

import (
	"encoding/json"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMatchSubset(t *testing.T) {
	cases := []struct {
		name, want, got string
		ok              bool
	}{
		{"extra fields allowed", `{"a":1}`, `{"a":1,"b":2}`, true},
		{"missing field", `{"a":1}`, `{"b":1}`, false},
		{"explicit null needs presence", `{"a":null}`, `{}`, false},
		{"explicit null matches null", `{"a":null}`, `{"a":null}`, true},
		{"null is not absent value", `{"a":null}`, `{"a":0}`, false},
		{"array length", `{"a":[1]}`, `{"a":[1,2]}`, false},
		{"array order", `{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{"objects in arrays are subsets", `[{"x":1}]`, `[{"x":1,"y":2}]`, true},
		{"empty array asserts none", `{"a":[]}`, `{"a":[1]}`, false},
		{"scalar mismatch", `{"a":"x"}`, `{"a":"y"}`, false},
		{"number forms", `{"a":1}`, `{"a":1.0}`, true},
		{"type mismatch", `{"a":{}}`, `{"a":[]}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := matchSubset("", decode(t, tc.want), decode(t, tc.got))
			if (msg == "") != tc.ok {
				t.Fatalf("ok=%v but message %q", tc.ok, msg)
			}
		})
	}
}

func TestMatchExact(t *testing.T) {
	if msg := matchExact(map[string]any{"a": 1}, decode(t, `{"a":1}`)); msg != "" {
		t.Fatal(msg)
	}
	if msg := matchExact(map[string]any{"a": 1}, decode(t, `{"a":1,"b":2}`)); msg == "" {
		t.Fatal("exact must refuse extra fields")
	}
	if msg := matchExact(nil, nil); msg != "" {
		t.Fatal("exact null must match a null result")
	}
}

func TestResolvePointer(t *testing.T) {
	doc := decode(t, `{"a":{"b/c":[1,{"d~e":2}]}}`)
	if v, ok := resolvePointer(doc, "/a/b~1c/1/d~0e"); !ok || v != 2.0 {
		t.Fatalf("got %v %v", v, ok)
	}
	if _, ok := resolvePointer(doc, "/a/missing"); ok {
		t.Fatal("missing field resolved")
	}
	if _, ok := resolvePointer(doc, "/a/b~1c/5"); ok {
		t.Fatal("index out of range resolved")
	}
}

// TestMismatchShowsJSON: a failure shows values as JSON, as the test's
// author wrote them, never as Go's map[string]interface {}{...}.
func TestMismatchShowsJSON(t *testing.T) {
	msg := matchSubset("", decode(t, `{"a":{"b":[1,"x<y"]}}`), decode(t, `{"a":{"b":2}}`))
	want := `/a/b: want an array, got a number`
	if msg != want {
		t.Fatalf("message %q, want %q", msg, want)
	}
	msg = matchExact(decode(t, `{"a":[1,{"b":null}]}`), decode(t, `{"a":"x<y"}`))
	want = `want exactly {"a":[1,{"b":null}]}, got {"a":"x<y"}`
	if msg != want {
		t.Fatalf("message %q, want %q", msg, want)
	}
}
