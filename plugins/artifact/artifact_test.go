package artifact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
)

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Admission snapshots the file: later changes to it do not reach the
// artifact, the descriptor binds size, digest and media type and never
// names the host path, and base64 pages tile the snapshot exactly, each
// with its range digest.
func TestAdmitSnapshotsAndBase64PagesTileIt(t *testing.T) {
	e := newEnv(t)
	content := bytes.Repeat([]byte("binary\x00\xff\xfe data "), 500)
	path := e.write("data/blob.bin", content)
	res := e.invoke(AdmitCapability, map[string]any{"path": "data/blob.bin"})
	d := ok[Descriptor](t, res)
	if d.Schema != ArtifactSchema || d.Bytes != int64(len(content)) || d.Digest != digestOf(content) || d.Origin != "admitted" || d.Labels.Sharing != "configured_model" {
		t.Fatalf("descriptor %+v", d)
	}
	if strings.Contains(string(res.Output), e.root) || strings.Contains(string(res.Output), "blob.bin") {
		t.Fatalf("the descriptor names the host path: %s", res.Output)
	}
	if d.MediaType != "application/octet-stream" {
		t.Fatalf("media type %q", d.MediaType)
	}
	os.WriteFile(path, []byte("changed"), 0o644)
	var got []byte
	for _, p := range e.readAll(d.Ref, "base64", 1000) {
		c := p.content(t)
		if p.RangeDigest != digestOf(c) || p.Digest != d.Digest || p.Schema != PageSchema || int64(len(c)) != p.NextOffset-p.Offset {
			t.Fatalf("page %+v", p)
		}
		got = append(got, c...)
	}
	if !bytes.Equal(got, content) {
		t.Fatal("the pages are not the snapshot")
	}
	// A page past the end is refused; the end itself is an empty last page.
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "offset": len(content) + 1}), errcode.ArtifactOffsetInvalid)
	last := ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "offset": len(content)}))
	if !last.EOF || len(last.content(t)) != 0 {
		t.Fatalf("page at the end %+v", last)
	}
	// Labels: local_only is kept.
	l := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "data/blob.bin", "labels": map[string]string{"sharing": "local_only"}}))
	if l.Labels.Sharing != "local_only" || l.Digest != digestOf([]byte("changed")) {
		t.Fatalf("second admission %+v", l)
	}
}

// UTF-8 pages end on a character: every page is valid UTF-8, however the
// page size falls, and they rebuild the text.
func TestUTF8PagesEndOnACharacter(t *testing.T) {
	e := newEnv(t)
	text := strings.Repeat("héllo 日本語 \"quoted\"\n\t🙂 ", 40)
	e.write("notes.md", []byte(text))
	d := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "notes.md"}))
	if d.MediaType != "text/markdown" {
		t.Fatalf("media type %q", d.MediaType)
	}
	for _, size := range []int{1, 2, 3, 5, 7, 64, 1 << 20} {
		var got strings.Builder
		for _, p := range e.readAll(d.Ref, "utf8", size) {
			if p.Data == nil || !utf8.ValidString(*p.Data) || p.RangeDigest != digestOf([]byte(*p.Data)) {
				t.Fatalf("size %d: page %+v", size, p)
			}
			got.WriteString(*p.Data)
		}
		if got.String() != text {
			t.Fatalf("size %d: pages do not rebuild the text", size)
		}
	}
	// An offset inside a character, and a file that is not UTF-8.
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "offset": 2, "encoding": "utf8"}), errcode.ArtifactOffsetInvalid)
	e.write("bad.txt", []byte("ok \xff\xfe not text"))
	bad := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "bad.txt"}))
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": bad.Ref, "encoding": "utf8"}), errcode.ArtifactNotUTF8)
}

// JSON-array pages hold whole items, at least one, and tile the array.
func TestJSONArrayPagesHoldWholeItems(t *testing.T) {
	e := newEnv(t)
	var items []string
	for i := 0; i < 60; i++ {
		items = append(items, `{"id":`+itoa(i)+`,"text":"item, [with] \"brackets\" }"}`)
	}
	items = append(items, `"`+strings.Repeat("long ", 40)+`"`, `3.5`, `null`, `[1,[2,{"a":"]"}]]`)
	doc := " [ " + strings.Join(items, " ,\n ") + " ]\n"
	e.write("rows.json", []byte(doc))
	d := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "rows.json"}))
	for _, size := range []int{1, 50, 100, 333, 1 << 20} {
		var got []string
		var raw []byte
		for _, p := range e.readAll(d.Ref, "json_array", size) {
			if len(p.Items) == 0 && !p.EOF {
				t.Fatalf("size %d: an empty page before the end", size)
			}
			for _, it := range p.Items {
				got = append(got, string(it))
			}
			if p.Offset == 0 && len(p.Items) > 1 && int(p.NextOffset-p.Offset) > max(size, 0) && size >= 100 {
				t.Fatalf("size %d: page of %d bytes", size, p.NextOffset-p.Offset)
			}
			seg, _ := os.ReadFile(filepath.Join(e.root, "rows.json"))
			if p.RangeDigest != digestOf(seg[p.Offset:p.NextOffset]) {
				t.Fatalf("size %d: range digest of page at %d", size, p.Offset)
			}
			raw = append(raw, seg[p.Offset:p.NextOffset]...)
		}
		if strings.Join(got, "|") != strings.Join(items, "|") {
			t.Fatalf("size %d: items %v", size, got)
		}
		if string(raw) != doc {
			t.Fatalf("size %d: pages do not tile the artifact", size)
		}
	}
	first := ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "encoding": "json_array", "max_bytes": 1}))
	if len(first.Items) != 1 {
		t.Fatalf("a page smaller than an item holds %d items", len(first.Items))
	}
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "encoding": "json_array", "offset": 4}), errcode.ArtifactOffsetInvalid)
	e.write("obj.json", []byte(`{"not":"an array"}`))
	obj := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "obj.json"}))
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": obj.Ref, "encoding": "json_array"}), errcode.ArtifactNotJSONArray)
	e.write("trail.json", []byte(`[1,2] x`))
	trail := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "trail.json"}))
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": trail.Ref, "encoding": "json_array"}), errcode.ArtifactNotJSONArray)
	e.write("empty.json", []byte(`[]`))
	empty := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "empty.json"}))
	if p := ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": empty.Ref, "encoding": "json_array"})); !p.EOF || p.Items == nil || len(p.Items) != 0 {
		t.Fatalf("empty array page %+v", p)
	}
	big := `["` + strings.Repeat("x", MaxPageBytes) + `"]`
	e.write("big.json", []byte(big))
	bigD := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "big.json"}))
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": bigD.Ref, "encoding": "json_array"}), errcode.ArtifactRecordTooLarge)
}

// A run admits at most 512 MiB in all; past it admission is refused with
// its code and nothing is kept. A call sent again answers the same
// reference and counts once.
func TestAdmissionCeilingPerRun(t *testing.T) {
	e := newEnv(t)
	e.write("small.txt", []byte("hello"))
	c := e.context()
	a := ok[Descriptor](t, e.invokeCtx(c, AdmitCapability, map[string]any{"path": "small.txt"}))
	again := ok[Descriptor](t, e.invokeCtx(c, AdmitCapability, map[string]any{"path": "small.txt"}))
	if again.Ref != a.Ref {
		t.Fatalf("a re-sent call answered %s, then %s", a.Ref, again.Ref)
	}
	// A sparse file of exactly the ceiling: with 5 bytes admitted, no room.
	big := filepath.Join(e.root, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxRunAdmission)
	f.Close()
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": "big.bin"}), errcode.ArtifactAdmissionLimit)
	blobs, _ := os.ReadDir(filepath.Join(e.project, "artifacts", "blobs"))
	if len(blobs) != 1 {
		t.Fatalf("%d blobs kept; the refused admission kept something", len(blobs))
	}
	// Another run has its own ceiling.
	e.run = "run-2"
	f, _ = os.OpenFile(big, os.O_WRONLY, 0)
	f.Truncate(MaxRunAdmission - 5)
	f.Close()
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": "missing.bin"}), errcode.ArtifactNotRegularFile)
	e.run = "run-1"
	// Exactly to the ceiling passes the pre-check; one byte past does not.
	f, _ = os.OpenFile(big, os.O_WRONLY, 0)
	f.Truncate(MaxRunAdmission - 4)
	f.Close()
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": "big.bin"}), errcode.ArtifactAdmissionLimit)
}

// Admission reads only what the step's reach holds: no directory, nothing
// outside the workspace, no secret, nothing under .runx.
func TestAdmitRefusals(t *testing.T) {
	e := newEnv(t)
	e.write("dir/x.txt", []byte("x"))
	e.write(".env", []byte("TOKEN=1"))
	outside := filepath.Join(t.TempDir(), "out.txt")
	os.WriteFile(outside, []byte("outside"), 0o644)
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": "dir"}), errcode.ArtifactNotRegularFile)
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": outside}), errcode.ReachOutsideWorkspace)
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": ".env"}), errcode.ReachSecretRefused)
	os.Symlink(outside, filepath.Join(e.root, "link.txt"))
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": "link.txt"}), errcode.ReachSymlinkEscape)
	e.write(".runx/state.txt", []byte("state"))
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": ".runx/state.txt"}), errcode.ReachProtectedDir)
	c := e.context()
	c.Binding = nil
	refused(t, e.invokeCtx(c, AdmitCapability, map[string]any{"path": "dir/x.txt"}), errcode.ArtifactStateMissing)
	refused(t, e.invoke(AdmitCapability, map[string]any{"path": 7}), errcode.ArtifactRequestInvalid)
}

// A reference grants nothing: it names an artifact of its own run only,
// and a read is held to the reading step's reach, so a file admitted under
// reach inputs from an input's root is not readable by a step whose reach
// does not hold it.
func TestReferenceGrantsNoPermission(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("from an input root"), 0o644)
	e.reach, e.roots = pathpolicy.ReachInputs, []string{dir}
	d := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": filepath.Join(dir, "in.txt")}))
	if p := ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "encoding": "utf8"})); *p.Data != "from an input root" {
		t.Fatalf("page %+v", p)
	}
	e.reach, e.roots = pathpolicy.ReachWorkspace, nil
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref}), errcode.ArtifactReachRefused)
	e.reach, e.roots = pathpolicy.ReachInputs, nil // inputs, but not that root
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref}), errcode.ArtifactReachRefused)
	e.reach, e.roots = pathpolicy.ReachInputs, []string{dir}
	e.run = "run-other"
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref}), errcode.ArtifactRefUnknown)
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": "art_00000000000000000000000000000000"}), errcode.ArtifactRefUnknown)
}

// artifact.store keeps a value's canonical JSON; artifact.open checks root,
// size and digest, each refused with its own code, and gives a reference
// only a step with reach inputs reads.
func TestStoreAndOpen(t *testing.T) {
	e := newEnv(t)
	value := map[string]any{"b": []any{1, 2.5, "x"}, "a": "é"}
	refused(t, e.invoke(StoreCapability, map[string]any{"value": value}), errcode.ArtifactReachRequired)
	e.reach = pathpolicy.ReachInputs
	stored := ok[Descriptor](t, e.invoke(StoreCapability, map[string]any{"value": value}))
	canonical := `{"a":"é","b":[1,2.5,"x"]}`
	if stored.Digest != digestOf([]byte(canonical)) || stored.ArtifactID != stored.Digest || stored.Bytes != int64(len(canonical)) || stored.Root == "" || stored.MediaType != "application/json" {
		t.Fatalf("stored %+v", stored)
	}
	opened := ok[Descriptor](t, e.invoke(OpenCapability, map[string]any{"artifact": stored}))
	p := ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": opened.Ref, "encoding": "utf8"}))
	if *p.Data != canonical || !p.EOF {
		t.Fatalf("opened page %+v", p)
	}
	e.reach = pathpolicy.ReachWorkspace
	refused(t, e.invoke(ReadCapability, map[string]any{"ref": opened.Ref}), errcode.ArtifactReachRefused)
	refused(t, e.invoke(OpenCapability, map[string]any{"artifact": stored}), errcode.ArtifactReachRequired)
	e.reach = pathpolicy.ReachInputs

	other := stored
	other.Root = digestOf([]byte("another project"))
	refused(t, e.invoke(OpenCapability, map[string]any{"artifact": other}), errcode.ArtifactRootMismatch)
	other = stored
	other.Bytes++
	refused(t, e.invoke(OpenCapability, map[string]any{"artifact": other}), errcode.ArtifactSizeMismatch)
	other = stored
	other.Digest, other.ArtifactID = digestOf([]byte("nothing")), digestOf([]byte("nothing"))
	refused(t, e.invoke(OpenCapability, map[string]any{"artifact": other}), errcode.ArtifactNotFound)
	// Content changed behind the store's back, at the same size.
	blob := filepath.Join(e.project, "artifacts", "blobs", strings.TrimPrefix(stored.Digest, "sha256:"))
	os.Chmod(blob, 0o600)
	os.WriteFile(blob, []byte(strings.Replace(canonical, "x", "y", 1)), 0o600)
	refused(t, e.invoke(OpenCapability, map[string]any{"artifact": stored}), errcode.ArtifactDigestMismatch)
	var raw json.RawMessage = []byte(`{"schema":"runx.artifact.v1"}`)
	refused(t, e.invoke(OpenCapability, map[string]any{"artifact": raw, "extra": 1}), errcode.ArtifactRootMismatch)
}
