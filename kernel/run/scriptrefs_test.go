package run

import (
	"strings"
	"testing"
)

// An input whose canonical JSON is 64 KiB stays inline; one byte more is a
// reference, and an array that large is a reference an item.
func TestScriptInputsInlineUpTo64KiB(t *testing.T) {
	exact := strings.Repeat("x", ScriptInputInlineMax-2) // its JSON adds two quotes
	over := exact + "x"
	in, refs, err := scriptInputs(map[string]any{"exact": exact, "over": over, "list": []any{over, "small"}, "n": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	if in["exact"] != exact || in["n"] != 1.0 {
		t.Fatalf("inline inputs changed: %v", in["n"])
	}
	if ref, ok := refOf(in["over"]); !ok || ref != "input/over" || refs[ref] != over {
		t.Fatalf("over: %v", in["over"])
	}
	list, _ := in["list"].([]any)
	if len(list) != 2 {
		t.Fatalf("list: %v", in["list"])
	}
	for i, want := range []any{over, "small"} {
		ref, ok := refOf(list[i])
		if !ok || refs[ref] != want {
			t.Fatalf("item %d: %v", i, list[i])
		}
	}
	// Content replaces known references at any depth; an unknown one in an
	// output is refused at its pointer, and left alone in a call's input.
	out, bad := refs.resolveOutput(map[string]any{"a": []any{map[string]any{"$ref": "input/over"}}})
	if bad != nil || out.(map[string]any)["a"].([]any)[0] != over {
		t.Fatalf("resolved %v %v", out, bad)
	}
	if _, bad := refs.resolveOutput(map[string]any{"a/b": []any{1, map[string]any{"$ref": "input/none"}}}); bad == nil || bad.Code != CodeScriptReferenceUnknown || !strings.Contains(bad.Message, "/a~1b/1") {
		t.Fatalf("unknown reference: %v", bad)
	}
	kept := refs.substitute(map[string]any{"x": map[string]any{"$ref": "elsewhere"}})
	if ref, _ := refOf(kept.(map[string]any)["x"]); ref != "elsewhere" {
		t.Fatalf("an unknown reference in a call's input changed: %v", kept)
	}
}
