package packet

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/errcode"
)

func reportSchema(t testing.TB, from, name string, required ...any) *Schema {
	t.Helper()
	s, err := NewSchema("acme.report.v1", map[string]any{
		"type": "object", "required": required,
		"properties": map[string]any{"title": map[string]any{"type": "string"}},
	}, from, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if got := contract.CodeOf(err); got != code {
		t.Fatalf("got %v (%s), want %s", err, got, code)
	}
}

// The registry holds the kernel's own packets; a description registers
// more; the same schema again is a no-op and another under the same id is
// refused, from the base registry's view or a package's alike.
func TestRegistryByDescription(t *testing.T) {
	r := NewRegistry()
	if _, ok := r.Lookup(ArtifactPacket); !ok {
		t.Fatal("the kernel's runx.artifact.v1 is not registered")
	}
	if _, err := r.Require("acme.report.v1", "step x output r"); contract.CodeOf(err) != errcode.PacketUnknown {
		t.Fatalf("unknown packet: %v", err)
	}
	if err := r.Register(reportSchema(t, FromPlugin, "acme", "title")); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(reportSchema(t, FromPackage, "other", "title")); err != nil {
		t.Fatalf("the same schema again: %v", err)
	}
	wantCode(t, r.Register(reportSchema(t, FromPackage, "other")), errcode.PacketSchemaConflict)
	_, err := r.With(reportSchema(t, FromPackage, "other"))
	wantCode(t, err, errcode.PacketSchemaConflict)
	s2, _ := NewSchema("acme.note.v1", map[string]any{"type": "string"}, FromPackage, "notes")
	v, err := r.With(s2)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.Lookup("acme.note.v1"); !ok {
		t.Fatal("the package's view lacks its own packet")
	}
	if _, ok := r.Lookup("acme.note.v1"); ok {
		t.Fatal("a package's packet leaked into the base registry")
	}
	if ids := v.IDs(); len(ids) != len(kernelSchemas())+2 {
		t.Fatalf("ids %v", ids)
	}
}

func TestSchemaRefusals(t *testing.T) {
	_, err := NewSchema("Report", map[string]any{}, FromPackage, "x")
	wantCode(t, err, errcode.PacketSchemaInvalid)
	_, err = NewSchema("acme.report.v1", map[string]any{"type": "nothing"}, FromPackage, "x")
	wantCode(t, err, errcode.PacketSchemaInvalid)
}

func openStore(t *testing.T) *artifactstore.Store {
	st, err := artifactstore.Open(filepath.Join(t.TempDir(), ".runx"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func asRef(d artifactstore.Descriptor) map[string]any {
	m := map[string]any{"schema": d.Schema, "digest": d.Digest, "bytes": float64(d.Bytes)}
	if d.Ref != "" {
		m["ref"] = d.Ref
	}
	if d.Root != "" {
		m["root"], m["artifact_id"] = d.Root, d.ArtifactID
	}
	return m
}

// A kept packet is checked first; its reference resolves again to the
// same value in its run, and by artifact_id and root in another.
func TestKeepAndResolve(t *testing.T) {
	st := openStore(t)
	s := reportSchema(t, FromPackage, "acme", "title")
	_, err := Keep(st, "run_a", "output/report", s, map[string]any{"body": "x"})
	wantCode(t, err, errcode.PacketInvalid)
	d, err := Keep(st, "run_a", "output/report", s, map[string]any{"title": "T"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Packet != s.ID || !artifactstore.ValidRef(d.Ref) || d.Root != st.Root() {
		t.Fatalf("descriptor %+v", d)
	}
	v, got, err := Resolve(st, []string{"run_a"}, asRef(d), s)
	if err != nil || v.(map[string]any)["title"] != "T" || got.Digest != d.Digest || got.Packet != s.ID {
		t.Fatalf("resolve in its run: %v %+v %v", v, got, err)
	}
	other := asRef(d)
	delete(other, "ref")
	if _, _, err := Resolve(st, []string{"run_b"}, other, s); err != nil {
		t.Fatalf("an earlier run's packet by artifact_id: %v", err)
	}
	// A ref of another run is not this run's; with its artifact_id and
	// root it names what the project holds.
	onlyRef := asRef(d)
	delete(onlyRef, "root")
	delete(onlyRef, "artifact_id")
	_, _, err = Resolve(st, []string{"run_b"}, onlyRef, s)
	wantCode(t, err, errcode.PacketRefNotFound)
	if _, _, err := Resolve(st, []string{"run_b", "run_a"}, onlyRef, s); err != nil {
		t.Fatalf("a ref of a run named later: %v", err)
	}
	if _, _, err := Resolve(st, []string{"run_b"}, asRef(d), s); err != nil {
		t.Fatalf("a ref of another run with its artifact_id and root: %v", err)
	}
}

// A reference whose digest is not its content's, one leaving the store
// and content that does not meet the input's packet are refused.
func TestResolveRefusals(t *testing.T) {
	st := openStore(t)
	s := reportSchema(t, FromPackage, "acme", "title")
	d, err := Keep(st, "run_a", "output/report", s, map[string]any{"title": "T"})
	if err != nil {
		t.Fatal(err)
	}
	wrong := asRef(d)
	wrong["digest"] = "sha256:" + artifactstore.HexDigest([]byte("other"))
	_, _, err = Resolve(st, []string{"run_a"}, wrong, s)
	wantCode(t, err, errcode.PacketRefDigestMismatch)
	wrong = asRef(d)
	delete(wrong, "ref")
	wrong["digest"] = "sha256:" + artifactstore.HexDigest([]byte("other"))
	wrong["artifact_id"] = wrong["digest"]
	_, _, err = Resolve(st, []string{"run_b"}, wrong, s)
	wantCode(t, err, errcode.PacketRefNotFound)

	// The content changed under its digest.
	blob := st.BlobPath(d.Digest)
	if err := os.Chmod(blob, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, []byte(`{"title":"U"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = Resolve(st, []string{"run_a"}, asRef(d), s)
	wantCode(t, err, errcode.PacketRefDigestMismatch)

	for name, mutate := range map[string]func(m map[string]any){
		"another root": func(m map[string]any) { m["root"] = "sha256:" + artifactstore.HexDigest([]byte("/elsewhere")) },
		"a path":       func(m map[string]any) { m["path"] = "/etc/passwd" },
		"a url":        func(m map[string]any) { m["uri"] = "https://example.com/x" },
		"a bad ref":    func(m map[string]any) { m["ref"] = "../../x" },
		"no ref, no root": func(m map[string]any) {
			delete(m, "ref")
			delete(m, "root")
		},
	} {
		m := asRef(d)
		mutate(m)
		if _, _, err := Resolve(st, []string{"run_a"}, m, s); contract.CodeOf(err) != errcode.PacketRefOutsideStore {
			t.Errorf("%s: %v", name, err)
		}
	}

	st2 := openStore(t)
	d2, err := Keep(st2, "run_a", "output/n", s, map[string]any{"title": "T"})
	if err != nil {
		t.Fatal(err)
	}
	strict := reportSchema(t, FromPackage, "acme", "title", "body")
	_, _, err = Resolve(st2, []string{"run_a"}, asRef(d2), strict)
	wantCode(t, err, errcode.PacketInvalid)
}
