package receipt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// A crash can leave the index ending in any prefix of its last line. For
// every such length: the store recovers the tail under its lock, the
// entries before it read back, the next append lands as a line of its own,
// and the index reads whole after it (before the repair, the appended line
// was glued to the torn one and every later read was refused as
// receipt_index_malformed).
func TestTornIndexTailEveryLength(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	st, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	sg := newTestSigner(t, "torn")
	first := sealAndPutRoot(t, st, sg, runBody("run-1"))
	last := sealAndPutRoot(t, st, sg, runBody("run-2"))
	st.Close()
	whole, err := os.ReadFile(filepath.Join(base, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(whole, []byte("\n"))
	if len(lines) != 3 || len(lines[2]) != 0 {
		t.Fatalf("want two index lines, have %q", whole)
	}
	head, line := lines[0], lines[1]
	next := sealUnchecked(t, sg, runBody("run-3"))

	for cut := 1; cut < len(line); cut++ {
		dir := filepath.Join(t.TempDir(), "receipts")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{first.r.ID, last.r.ID} {
			name := "sha256-" + id[len("sha256:"):] + ".json"
			data, err := os.ReadFile(filepath.Join(base, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		index := filepath.Join(dir, IndexFile)
		if err := os.WriteFile(index, append(bytes.Clone(head), line[:cut]...), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		torn, err := s.RecoverTail()
		if err != nil {
			t.Fatalf("cut at %d: recover: %v", cut, err)
		}
		endedWhole := cut == len(line)-1 // every byte but the newline
		if torn == nil || torn.Offset != int64(len(head)) || torn.Bytes != cut || torn.Ended != endedWhole {
			t.Fatalf("cut at %d: recovered %+v, want the %d bytes at %d (ended whole: %v)", cut, torn, cut, len(head), endedWhole)
		}
		if !endedWhole {
			aside, err := os.ReadFile(filepath.Join(dir, torn.SetAside))
			if err != nil || !bytes.Equal(aside, line[:cut]) {
				t.Fatalf("cut at %d: the torn bytes set aside are %q (%v), want %q", cut, aside, err, line[:cut])
			}
		}
		idEnd := len(`{"receipt_id":"`) + len(last.r.ID) + 1
		if wantID := map[bool]string{true: last.r.ID}[cut >= idEnd]; torn.ReceiptID != wantID {
			t.Fatalf("cut at %d: the torn line names %q, want %q", cut, torn.ReceiptID, wantID)
		}
		put(t, s, next)
		entries, err := s.Index()
		if err != nil {
			t.Fatalf("cut at %d: the index no longer reads: %v", cut, err)
		}
		want := []string{first.r.ID, next.r.ID}
		if endedWhole {
			want = []string{first.r.ID, last.r.ID, next.r.ID}
		}
		if len(entries) != len(want) {
			t.Fatalf("cut at %d: the index holds %d entries, want %d", cut, len(entries), len(want))
		}
		for i, e := range entries {
			if e.ReceiptID != want[i] {
				t.Fatalf("cut at %d: entry %d is %s, want %s", cut, i, e.ReceiptID, want[i])
			}
		}
		if again, err := s.RecoverTail(); err != nil || again != nil {
			t.Fatalf("cut at %d: a second recovery found %+v (%v), want nothing", cut, again, err)
		}
		s.Close()
	}
}

// An append with no explicit recovery first (a process that found the tail
// torn by another's crash after it opened) repairs the tail itself: the
// append path is what keeps lines apart.
func TestAppendAfterTornTailKeepsLinesApart(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "glue")
	sealAndPutRoot(t, st, sg, runBody("run-1"))
	f, err := os.OpenFile(filepath.Join(st.Dir(), IndexFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"receipt_id":"sha256:ab`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sealAndPutRoot(t, st, sg, runBody("run-2"))
	sealAndPut(t, st, sg, stepBody("run-2", "later"))
	entries, err := st.Index()
	if err != nil {
		t.Fatalf("the index no longer reads after a torn tail: %v", err)
	}
	if len(entries) != 3 {
		t.Fatalf("the index holds %d entries, want 3", len(entries))
	}
}

// The receipt a torn line named is indexed again once, as the caller says
// (root or not), and a second Reindex adds nothing.
func TestReindexAfterATornTail(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "reindex")
	root := sealAndPutRoot(t, st, sg, runBody("run-1"))
	index := filepath.Join(st.Dir(), IndexFile)
	raw, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, raw[:len(raw)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	torn, err := st.RecoverTail()
	if err != nil || torn == nil || torn.ReceiptID != root.r.ID {
		t.Fatalf("recovered %+v (%v), want the line of %s named", torn, err, root.r.ID)
	}
	for range 2 {
		if err := st.Reindex(torn.ReceiptID, true); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := st.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].ReceiptID != root.r.ID || !entries[0].Root {
		t.Fatalf("the index holds %+v, want %s once, as a root", entries, root.r.ID)
	}
	if err := st.Reindex("sha256:"+strings.Repeat("0", 64), true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("reindexing a receipt not stored: %v, want %s", err, errcode.ReceiptNotFound)
	}
}
