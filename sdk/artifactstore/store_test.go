package artifactstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestKeepLookupRead: content is kept once by its digest, a run's record
// is found only in that run, and a read gives the content only while it
// is what was kept.
func TestKeepLookupRead(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), ".runx"))
	if err != nil {
		t.Fatal(err)
	}
	content := []byte(`{"a":1}`)
	digest, err := st.KeepBytes(content)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := st.KeepBytes(content); err != nil || again != digest {
		t.Fatalf("keeping the same content again: %s %v", again, err)
	}
	if info, err := os.Stat(st.BlobPath(digest)); err != nil || info.Mode().Perm() != 0o400 {
		t.Fatalf("blob %v %v", info, err)
	}
	r := &Record{Ref: "art_0123456789abcdef0123456789abcdef", RunID: "run_a", Digest: digest, Bytes: int64(len(content)), MediaType: "application/json", Sharing: SharingDefault, Origin: OriginStored}
	if err := st.WithRunLock("run_a", func(dir string) error { return WriteRecord(dir, r) }); err != nil {
		t.Fatal(err)
	}
	got, err := st.Lookup("run_a", r.Ref)
	if err != nil || *got != *r {
		t.Fatalf("lookup %+v %v", got, err)
	}
	for _, c := range []struct{ run, ref string }{{"run_b", r.Ref}, {"run_a", "art_ffffffffffffffffffffffffffffffff"}, {"run_a", "../../x"}} {
		if _, err := st.Lookup(c.run, c.ref); !errors.Is(err, ErrRefUnknown) {
			t.Fatalf("%s %s: %v", c.run, c.ref, err)
		}
	}
	if b, err := st.ReadAll(r, 1<<20); err != nil || string(b) != string(content) {
		t.Fatalf("read %q %v", b, err)
	}
	if _, err := st.ReadAll(r, 2); err == nil {
		t.Fatal("a read past its bound gave content")
	}
	_ = os.Chmod(st.BlobPath(digest), 0o600)
	if err := os.WriteFile(st.BlobPath(digest), []byte(`{"a":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReadAll(r, 1<<20); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("a changed content read: %v", err)
	}
}

// TestBatch: a batch's contents and records read back as KeepBytes and
// WriteRecord's do, a content already kept is not written again, and
// Commit flushes them.
func TestBatch(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), ".runx"))
	if err != nil {
		t.Fatal(err)
	}
	b := st.NewBatch()
	d1, err := b.Keep([]byte(`"one"`))
	if err != nil {
		t.Fatal(err)
	}
	if d2, err := b.Keep([]byte(`"one"`)); err != nil || d2 != d1 || len(b.written) != 1 {
		t.Fatalf("the same content twice: %s %v (%d written)", d2, err, len(b.written))
	}
	r := &Record{Ref: "art_0123456789abcdef0123456789abcdef", RunID: "run_a", Digest: d1, Bytes: 5, MediaType: "application/json", Origin: OriginStored}
	if err := st.WithRunLock("run_a", func(dir string) error {
		if err := b.WriteRecord(dir, r); err != nil {
			return err
		}
		return b.Commit()
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Lookup("run_a", r.Ref); err != nil || *got != *r {
		t.Fatalf("lookup %+v %v", got, err)
	}
	if c, err := st.ReadAll(r, 100); err != nil || string(c) != `"one"` {
		t.Fatalf("read %q %v", c, err)
	}
	if info, err := os.Stat(st.BlobPath(d1)); err != nil || info.Mode().Perm() != 0o400 {
		t.Fatalf("blob %v %v", info, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(st.Dir, "tmp")); len(entries) != 0 {
		t.Fatalf("temporary files left: %v", entries)
	}
}
