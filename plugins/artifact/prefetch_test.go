package artifact

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
)

// prefetchEnv admits a text of a few pages and a JSON array, with no page
// prepared from an earlier test.
func prefetchEnv(t *testing.T) (*env, Descriptor, Descriptor) {
	pages.reset()
	t.Cleanup(pages.reset)
	e := newEnv(t)
	line := []byte("GET /assets/app.js 200 1834 bytes in 0.42 ms — \"keep-alive\"\n")
	e.write("app.log", bytes.Repeat(line, (3<<20)/len(line)))
	text := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "app.log"}))
	var items []string
	for i := 0; i < 3000; i++ {
		items = append(items, `{"id":`+itoa(i)+`,"text":"row [with] \"brackets\" }"}`)
	}
	e.write("rows.json", []byte("["+strings.Join(items, ",")+"]"))
	array := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": "rows.json"}))
	return e, text, array
}

// A reader paging an artifact through is answered from prepared pages,
// and each is byte for byte the document the ask builds when nothing was
// prepared, in every encoding.
func TestPrefetchedPagesAreTheDocumentsAskedFor(t *testing.T) {
	e, text, array := prefetchEnv(t)
	for _, tc := range []struct {
		ref, encoding string
		maxBytes      int
	}{{text.Ref, "base64", 1 << 20}, {text.Ref, "utf8", 700 << 10}, {array.Ref, "json_array", 64 << 10}} {
		hits := pages.hits.Load()
		var prefetched [][]byte
		var offset int64
		for {
			res := e.invoke(ReadCapability, map[string]any{"ref": tc.ref, "offset": offset, "max_bytes": tc.maxBytes, "encoding": tc.encoding})
			p := ok[pageDoc](t, res)
			prefetched = append(prefetched, res.Output)
			if p.EOF {
				break
			}
			offset = p.NextOffset
		}
		if got := pages.hits.Load() - hits; got != int64(len(prefetched)-1) || got < 2 {
			t.Fatalf("%s: %d of %d pages were prepared ahead; want all but the first", tc.encoding, got, len(prefetched))
		}
		offset = 0
		for i, want := range prefetched {
			pages.reset()
			hits := pages.hits.Load()
			res := e.invoke(ReadCapability, map[string]any{"ref": tc.ref, "offset": offset, "max_bytes": tc.maxBytes, "encoding": tc.encoding})
			if pages.hits.Load() != hits {
				t.Fatal("a page was answered from a prepared one after a reset")
			}
			if !bytes.Equal(res.Output, want) {
				t.Fatalf("%s page %d: the prepared document differs from the one built on the ask", tc.encoding, i)
			}
			offset = ok[pageDoc](t, res).NextOffset
		}
	}
}

// A prepared page answers only an ask that is admitted as any other: the
// reference must be the asking run's and its source within the asking
// step's reach, whatever was prepared for an earlier ask.
func TestPrefetchedPageNeedsTheAskAdmitted(t *testing.T) {
	pages.reset()
	t.Cleanup(pages.reset)
	e := newEnv(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), bytes.Repeat([]byte("from an input root\n"), 10000), 0o644)
	e.reach, e.roots = pathpolicy.ReachInputs, []string{dir}
	d := ok[Descriptor](t, e.invoke(AdmitCapability, map[string]any{"path": filepath.Join(dir, "in.txt")}))
	first := ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": d.Ref, "max_bytes": 4096, "encoding": "utf8"}))
	next := map[string]any{"ref": d.Ref, "offset": first.NextOffset, "max_bytes": 4096, "encoding": "utf8"}
	waitHeld(t, 1)

	e.reach, e.roots = pathpolicy.ReachInputs, nil // inputs, but not that root
	refused(t, e.invoke(ReadCapability, next), errcode.ArtifactReachRefused)
	e.reach, e.roots = pathpolicy.ReachWorkspace, nil
	refused(t, e.invoke(ReadCapability, next), errcode.ArtifactReachRefused)
	e.reach, e.roots, e.run = pathpolicy.ReachInputs, []string{dir}, "run-other"
	refused(t, e.invoke(ReadCapability, next), errcode.ArtifactRefUnknown)
	if pages.held() != 1 {
		t.Fatalf("refused asks changed the prepared pages: %d held", pages.held())
	}
	// The blob gone: the ask fails as it did, prepared page or not.
	e.run = "run-1"
	s, res := openStore(e.context())
	if res != nil {
		t.Fatal(res.Message)
	}
	os.Rename(s.blobPath(d.Digest), s.blobPath(d.Digest)+".away")
	if res := e.invoke(ReadCapability, next); res.Code != errcode.ArtifactNotFound {
		t.Fatalf("with the blob gone: %s %s", res.Code, res.Message)
	}
	os.Rename(s.blobPath(d.Digest)+".away", s.blobPath(d.Digest))
	hits := pages.hits.Load()
	if p := ok[pageDoc](t, e.invoke(ReadCapability, next)); p.Offset != first.NextOffset || pages.hits.Load() != hits+1 {
		t.Fatalf("the admitted ask: page at %d, prepared %v", p.Offset, pages.hits.Load() != hits)
	}
}

// Memory stays bounded: at most prefetchSlots pages are held, a reader
// that moves elsewhere drops its prepared page, and a page nobody asks
// for is dropped after prefetchKeep.
func TestPrefetchIsBounded(t *testing.T) {
	e, text, _ := prefetchEnv(t)
	read := func(run string, offset int64) {
		e.run = run
		ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": text.Ref, "offset": offset, "max_bytes": 4096, "encoding": "base64"}))
	}
	// Three readers (the same artifact seen as three references of
	// three runs would be three readers too; one run's reference with
	// three page sizes is simpler to make).
	for i, size := range []int{4096, 8192, 12288} {
		e.run = "run-1"
		ok[pageDoc](t, e.invoke(ReadCapability, map[string]any{"ref": text.Ref, "max_bytes": size, "encoding": "base64"}))
		waitHeld(t, min(i+1, prefetchSlots))
		if pages.held() > prefetchSlots {
			t.Fatalf("%d pages held", pages.held())
		}
	}
	pages.reset()
	read("run-1", 0)
	waitHeld(t, 1)
	read("run-1", 40960) // not the prepared page at 4096: it is dropped
	waitHeld(t, 1)       // and the one after 40960 prepared
	pages.mu.Lock()
	at := pages.slots[0].key.offset
	pages.mu.Unlock()
	if at != 45056 {
		t.Fatalf("prepared page at %d; want 45056", at)
	}
	prefetchKeep = 20 * time.Millisecond
	defer func() { prefetchKeep = 2 * time.Second }()
	read("run-1", 8192)
	waitHeld(t, 0)
}

// waitHeld waits until n pages are held and ready.
func waitHeld(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pages.mu.Lock()
		ready := len(pages.slots) == n
		for _, p := range pages.slots {
			ready = ready && isDone(p)
		}
		pages.mu.Unlock()
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pages held; want %d", pages.held(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
