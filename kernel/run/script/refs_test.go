package script

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/errcode"
)

// An input whose canonical JSON is 64 KiB stays inline; one byte more is an
// artifact of the run in the project's artifact store, given by reference,
// and an array that large is a reference an item. The references are the
// same on every drive, and the store holds each under them.
func TestScriptInputsInlineUpTo64KiB(t *testing.T) {
	project := filepath.Join(t.TempDir(), ".runx")
	runID := "run_refs"
	exact := strings.Repeat("x", InputInlineMax-2) // its JSON adds two quotes
	over := exact + "x"
	inputs := map[string]any{"exact": exact, "over": over, "list": []any{over, "small"}, "n": 1.0}
	in, refs, err := KeepInputs(project, runID, "walk", inputs)
	if err != nil {
		t.Fatal(err)
	}
	if in["exact"] != exact || in["n"] != 1.0 {
		t.Fatalf("inline inputs changed: %v", in["n"])
	}
	ref, ok := RefOf(in["over"])
	if s, known := refs.lookup(ref); !ok || !known || s.label != "input/over" || s.content != over || !artifactstore.ValidRef(ref) {
		t.Fatalf("over: %v", in["over"])
	}
	list, _ := in["list"].([]any)
	if len(list) != 2 {
		t.Fatalf("list: %v", in["list"])
	}
	for i, want := range []any{over, "small"} {
		ref, ok := RefOf(list[i])
		if s, known := refs.lookup(ref); !ok || !known || s.content != want {
			t.Fatalf("item %d: %v", i, list[i])
		}
	}
	// Each is a record of the run over content kept by its digest.
	st, err := artifactstore.Open(project)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Lookup("run_refs", ref)
	if err != nil || rec.Origin != artifactstore.OriginStored || rec.MediaType != "application/json" || rec.Bytes != int64(len(over)+2) {
		t.Fatalf("record %+v %v", rec, err)
	}
	content, err := st.ReadAll(rec, 1<<20)
	if err != nil || string(content) != `"`+over+`"` {
		t.Fatalf("content %d bytes, %v", len(content), err)
	}
	if _, err := st.Lookup("run_other", ref); err != artifactstore.ErrRefUnknown {
		t.Fatalf("another run reaches the reference: %v", err)
	}
	// A later drive (a resume) names the same artifacts.
	again, _, err := KeepInputs(project, runID, "walk", inputs)
	if err != nil || again["over"].(map[string]any)["$ref"] != ref {
		t.Fatalf("a second drive gave %v (%v)", again["over"], err)
	}
	arts := refs.Artifacts()
	if len(arts) != 3 || arts[0].Label != "input/list/0" || arts[1].Label != "input/list/1" || arts[2].Label != "input/over" || arts[2].Ref != ref || arts[2].Digest != rec.Digest {
		t.Fatalf("artifacts %+v", arts)
	}

	// Content replaces known references at any depth; an unknown one in an
	// output is refused at its pointer, and left alone in a call's input.
	out, bad := refs.ResolveOutput(map[string]any{"a": []any{map[string]any{"$ref": ref}}})
	if bad != nil || out.(map[string]any)["a"].([]any)[0] != over {
		t.Fatalf("resolved %v %v", out, bad)
	}
	if _, bad := refs.ResolveOutput(map[string]any{"a/b": []any{1, map[string]any{"$ref": "input/none"}}}); bad == nil || bad.Code != errcode.ScriptReferenceUnknown || !strings.Contains(bad.Message, "/a~1b/1") {
		t.Fatalf("unknown reference: %v", bad)
	}
	kept, given := refs.SubstituteNamed(map[string]any{"x": map[string]any{"$ref": "elsewhere"}, "y": []any{map[string]any{"$ref": ref}}})
	if r, _ := RefOf(kept.(map[string]any)["x"]); r != "elsewhere" {
		t.Fatalf("an unknown reference in a call's input changed: %v", kept)
	}
	if len(given) != 1 || given[0].Label != "input/y/0" || given[0].Ref != ref {
		t.Fatalf("a call's input names %+v", given)
	}
}

// A store that cannot be made refuses the step with its code.
func TestScriptInputsStoreUnavailable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	project, runID := filepath.Join(blocker, ".runx"), "run_refs"
	_, _, err := KeepInputs(project, runID, "walk", map[string]any{"big": strings.Repeat("x", InputInlineMax)})
	if c := contract.CodeOf(err); c != errcode.ScriptArtifactUnavailable {
		t.Fatalf("code %q, err %v", c, err)
	}
}

// BenchmarkScriptInputs1000Items keeps an array input of 1,000 distinct
// items as 1,000 artifacts of the run (first drive: contents, records and
// one flush) and names them again (a later drive, as after a resume).
func BenchmarkScriptInputs1000Items(b *testing.B) {
	items := make([]any, 1000)
	for i := range items {
		items[i] = strings.Repeat("x", 100) + strconv.Itoa(i)
	}
	in := map[string]any{"items": items}
	for _, drive := range []string{"first", "later"} {
		b.Run(drive, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				project := filepath.Join(b.TempDir(), ".runx")
				runID := "run_bench"
				if drive == "later" {
					if _, _, err := KeepInputs(project, runID, "walk", in); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if _, _, err := KeepInputs(project, runID, "walk", in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A read past what one read gives whole is refused by its code before any
// byte is read: artifact.read pages it.
func TestScriptReadTooLarge(t *testing.T) {
	st, err := artifactstore.Open(filepath.Join(t.TempDir(), ".runx"))
	if err != nil {
		t.Fatal(err)
	}
	s := &artifactRef{label: "call/0", rec: &artifactstore.Record{Ref: "art_0123456789abcdef0123456789abcdef", Digest: "sha256:" + strings.Repeat("a", 64), Bytes: readMax + 1, MediaType: "application/json"}}
	if _, failure := s.read(st); failure == nil || failure.Code != errcode.ScriptArtifactTooLarge {
		t.Fatalf("failure %+v", failure)
	}
}
