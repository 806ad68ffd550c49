package receipt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestOpenInitialisesMissingAndEmptyDirs(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "a", "receipts")
	empty := t.TempDir()
	for _, dir := range []string{missing, empty} {
		s, err := Open(dir)
		if err != nil {
			t.Fatalf("Open(%s): %v", dir, err)
		}
		s.Close()
		idx, err := os.Stat(filepath.Join(dir, IndexFile))
		if err != nil || idx.Size() != 0 {
			t.Fatalf("no empty index in %s (%v)", dir, err)
		}
	}
	info, err := os.Stat(missing)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o700 {
		t.Fatalf("new store dir mode %04o, want 0700", got)
	}
	// Reopening a store keeps what it holds.
	s, err := Open(missing)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := sealAndPut(t, s, newTestSigner(t, "o"), stepBody("r", "s"))
	s2, err := Open(missing)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, _, err := s2.Get(x.r.ID); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefusesDirectoryWithoutIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "receipts")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "sha256-0000.json")
	if err := os.WriteFile(old, []byte(`{"old":"receipt"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)

	s, err := Open(dir)
	if s != nil {
		t.Fatal("Open returned a store for an unrecognised directory")
	}
	wantCode(t, err, errcode.ReceiptStoreUnrecognized)
	msg := err.Error()
	for _, want := range []string{"does not read it", "move it aside", fmt.Sprintf("mv %s %s.old", dir, dir)} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	if after := snapshot(t, dir); after != before {
		t.Fatalf("Open wrote into a directory it refused:\nbefore %s\nafter  %s", before, after)
	}
}

func TestOpenRefusesNonStores(t *testing.T) {
	t.Run("a file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(p)
		wantCode(t, err, errcode.ReceiptStoreUnrecognized)
	})
	t.Run("index is a directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, IndexFile), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		wantCode(t, err, errcode.ReceiptStoreUnrecognized)
	})
	t.Run("only a hidden file", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ".DS_Store"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		wantCode(t, err, errcode.ReceiptStoreUnrecognized)
	})
}

// snapshot lists a directory's names, sizes and mtimes.
func snapshot(tb testing.TB, dir string) string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		tb.Fatal(err)
	}
	s := info.ModTime().Format(time.RFC3339Nano)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			tb.Fatal(err)
		}
		s += fmt.Sprintf(" %s:%d:%s", e.Name(), fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
	}
	return s
}

func TestPutGetRoundTrip(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "rt")
	step := sealAndPut(t, st, sg, stepBody("run-1", "greet"))
	root := sealAndPutRoot(t, st, sg, runBody("run-1", step.ref))

	r, raw, err := st.Get(root.r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, root.bytes) {
		t.Fatal("Get returned different bytes than were put")
	}
	if r.ID != root.r.ID || len(r.Body.Children) != 1 || r.Body.Children[0] != step.ref {
		t.Fatalf("Get returned %+v", r)
	}
	info, err := os.Stat(receiptPath(t, st, root.r.ID))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Fatalf("receipt file mode %04o, want 0600", got)
	}
	if !strings.HasPrefix(filepath.Base(info.Name()), "sha256-") {
		t.Fatalf("receipt file name %s", info.Name())
	}

	idx, err := st.Index()
	if err != nil {
		t.Fatal(err)
	}
	want := []IndexEntry{
		{ReceiptID: step.r.ID, Kind: KindStep, RunID: "run-1", SkillName: "test-skill", Outcome: seal.OutcomeCompleted, SealedAt: testSealed},
		{ReceiptID: root.r.ID, Kind: KindRun, RunID: "run-1", SkillName: "test-skill", Outcome: seal.OutcomeCompleted, SealedAt: testSealed, Root: true},
	}
	if fmt.Sprint(idx) != fmt.Sprint(want) {
		t.Fatalf("index\n got %+v\nwant %+v", idx, want)
	}
	line, err := os.ReadFile(filepath.Join(st.Dir(), IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(line), "\n", 2)[0]
	wantLine := fmt.Sprintf(`{"receipt_id":%q,"kind":"step","run_id":"run-1","skill_name":"test-skill","outcome":"completed","sealed_at":%q,"root":false}`, step.r.ID, testSealed)
	if first != wantLine {
		t.Fatalf("index line\n got %s\nwant %s", first, wantLine)
	}
}

func TestRunReceipts(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "runs")
	a := sealAndPut(t, st, sg, stepBody("run-a", "s1"))
	sealAndPut(t, st, sg, stepBody("run-b", "s1"))
	ra := sealAndPutRoot(t, st, sg, runBody("run-a", a.ref))
	got, err := st.RunReceipts("run-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ReceiptID != a.r.ID || got[1].ReceiptID != ra.r.ID || !got[1].Root {
		t.Fatalf("RunReceipts(run-a) = %+v", got)
	}
	none, err := st.RunReceipts("run-z")
	if err != nil || len(none) != 0 {
		t.Fatalf("RunReceipts(run-z) = %+v, %v", none, err)
	}
}

func TestPutIdenticalAgainIsANoOp(t *testing.T) {
	st := newTestStore(t)
	x := sealAndPut(t, st, newTestSigner(t, "again"), stepBody("run-1", "s"))
	if err := st.Put(x.r, x.bytes); err != nil {
		t.Fatalf("re-putting identical bytes: %v", err)
	}
	if err := st.PutRoot(x.r, x.bytes); err != nil {
		t.Fatalf("re-putting identical bytes as root: %v", err)
	}
	idx, err := st.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 1 {
		t.Fatalf("index holds %d lines after re-puts, want 1", len(idx))
	}
}

func TestPutConflictingBytesRefused(t *testing.T) {
	st := newTestStore(t)
	body := stepBody("run-1", "s")
	a := sealAndPut(t, st, newTestSigner(t, "a"), body)
	// The same body signed by another key has the same id and other bytes.
	b := sealBody(t, newTestSigner(t, "b"), body)
	if a.r.ID != b.r.ID || bytes.Equal(a.bytes, b.bytes) {
		t.Fatal("test setup: want one id with two signed forms")
	}
	err := st.Put(b.r, b.bytes)
	wantCode(t, err, errcode.ReceiptConflict)
	err = st.PutRoot(b.r, b.bytes)
	wantCode(t, err, errcode.ReceiptConflict)
	_, raw, err := st.Get(a.r.ID)
	if err != nil || !bytes.Equal(raw, a.bytes) {
		t.Fatalf("the stored receipt changed after a refused put (%v)", err)
	}
}

func TestPutRefusesBadInput(t *testing.T) {
	st := newTestStore(t)
	x := sealBody(t, newTestSigner(t, "bad"), stepBody("run-1", "s"))
	wantCode(t, st.Put(nil, x.bytes), errcode.ReceiptMalformed)
	wantCode(t, st.Put(x.r, nil), errcode.ReceiptMalformed)
	bad := *x.r
	bad.ID = "sha256:../../etc/passwd"
	wantCode(t, st.Put(&bad, x.bytes), errcode.ReceiptIDInvalid)
	other := sealBody(t, newTestSigner(t, "bad"), stepBody("run-1", "other"))
	wantCode(t, st.Put(x.r, other.bytes), errcode.ReceiptMalformed)
	if entries, _ := os.ReadDir(st.Dir()); len(entries) != 1 {
		t.Fatalf("refused puts left %d entries, want only the index", len(entries))
	}
}

func TestGetRefusals(t *testing.T) {
	st := newTestStore(t)
	x := sealBody(t, newTestSigner(t, "get"), stepBody("run-1", "s"))

	_, _, err := st.Get(x.r.ID)
	wantCode(t, err, errcode.ReceiptNotFound)
	_, _, err = st.Get("sha256:ABC")
	wantCode(t, err, errcode.ReceiptIDInvalid)

	overwrite(t, st, x.r.ID, []byte("{not json"))
	_, _, err = st.Get(x.r.ID)
	wantCode(t, err, errcode.ReceiptMalformed)
	overwrite(t, st, x.r.ID, []byte(`{"schema":"runx.receipt.v1","surprise":1}`))
	_, _, err = st.Get(x.r.ID)
	wantCode(t, err, errcode.ReceiptMalformed)
}

func TestIndexSkipsTornLastLine(t *testing.T) {
	st := newTestStore(t)
	x := sealAndPut(t, st, newTestSigner(t, "torn"), stepBody("run-1", "s"))
	f, err := os.OpenFile(filepath.Join(st.Dir(), IndexFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"receipt_id":"sha256:ab`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	idx, err := st.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 1 || idx[0].ReceiptID != x.r.ID {
		t.Fatalf("Index = %+v", idx)
	}
}

func TestIndexRefusesMalformedLine(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "bad-index")
	sealAndPut(t, st, sg, stepBody("run-1", "s"))
	f, err := os.OpenFile(filepath.Join(st.Dir(), IndexFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("garbage\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sealAndPut(t, st, sg, stepBody("run-1", "t"))
	_, err = st.Index()
	wantCode(t, err, errcode.ReceiptIndexMalformed)
	if !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("error %q does not name the line", err)
	}
}

func TestConcurrentPutsKeepIndexLinesWhole(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "conc")
	const workers, each = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r, b, err := sg.Seal(stepBody(fmt.Sprintf("run-%d", w), fmt.Sprintf("s%d", i)))
				if err == nil {
					err = st.Put(r, b)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	idx, err := st.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != workers*each {
		t.Fatalf("index holds %d entries, want %d", len(idx), workers*each)
	}
}

// Reading a store must not need write access (runx verify on a read-only
// copy), so Open leaves the index closed until the first Put.
func TestOpenExistingStoreWritesNothing(t *testing.T) {
	st := newTestStore(t)
	x := sealAndPut(t, st, newTestSigner(t, "ro"), stepBody("run-1", "s"))
	before := snapshot(t, st.Dir())
	st2, err := Open(st.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if st2.index != nil {
		t.Fatal("Open opened the index for writing")
	}
	if _, _, err := st2.Get(x.r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st2.Index(); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, st.Dir()); after != before {
		t.Fatalf("reading changed the store:\nbefore %s\nafter  %s", before, after)
	}
}

func TestGetRefusesOversizedAndSpecialFiles(t *testing.T) {
	st := newTestStore(t)
	x := sealBody(t, newTestSigner(t, "big"), stepBody("run-1", "s"))
	overwrite(t, st, x.r.ID, bytes.Repeat([]byte(" "), maxReceiptSize+1))
	_, _, err := st.Get(x.r.ID)
	wantCode(t, err, errcode.ReceiptUnreadable)
	y := sealBody(t, newTestSigner(t, "big"), stepBody("run-1", "dir"))
	if err := os.Mkdir(receiptPath(t, st, y.r.ID), 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, err = st.Get(y.r.ID)
	wantCode(t, err, errcode.ReceiptFileUnsafe)
	rep := Verify(context.Background(), st, x.r.ID, KeySet{}, Limits{})
	wantProblem(t, rep, StatusInvalid, "receipt_unreadable", x.r.ID)
}
