package artifact

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A reader pages an artifact from its start to its end, and between two
// of its pages the plugin would sit idle while the host receives and
// checks the last answer and asks for the next. So once a page is
// answered, the page after it (same artifact, same run and reference,
// same max_bytes and encoding, at next_offset) is prepared at once, beside
// the sending of this one, and an ask that names exactly it takes the
// prepared document instead of building it again.
//
// What it does not change: every ask is admitted as before (the kernel
// admits each call; the plugin looks the reference up in the asking run
// and holds it to the asking step's reach before it consults a prepared
// page), and a prepared page is the very document the ask would build,
// since a blob is immutable and named by its digest, and the key holds
// everything the document is made of. A prepared page nobody asks for is
// dropped at the next ask that names another page of its reader, when a
// newer one needs its place, or after prefetchKeep.

// prefetchSlots bounds the pages held or being prepared at once: each is
// at most a 4 MiB page's document (5.6 MiB in base64). Two let two
// readers page at once without dropping each other's pages.
const prefetchSlots = 2

// prefetchKeep is how long a prepared page waits to be asked for (a
// variable for the test that shows it dropped).
var prefetchKeep = 2 * time.Second

// pageKey names one page's document exactly.
type pageKey struct {
	project, run, ref string // whose reference, in which store
	digest            string // the blob, which is immutable
	bytes             int64
	offset            int64
	maxBytes          int
	encoding          string
}

// reader is the sequence a page belongs to: the next page of a reader
// replaces its last.
func (k pageKey) reader() pageKey {
	k.offset = 0
	return k
}

// prepared is one page being prepared or ready.
type prepared struct {
	key  pageKey
	done chan struct{}
	doc  []byte // nil when the page could not be built (the ask builds it and answers why)
	next int64
	// expiry drops it after prefetchKeep; stopped when it leaves the
	// slots, since a waiting timer would keep its document alive.
	expiry *time.Timer
}

// release forgets p's timer (the caller holds the lock and has taken p
// out of the slots).
func (p *prepared) release() {
	if p.expiry != nil {
		p.expiry.Stop()
		p.expiry = nil
	}
}

// prefetcher holds the prepared pages of this plugin process.
type prefetcher struct {
	mu    sync.Mutex
	slots []*prepared
	hits  atomic.Int64 // asks answered with a prepared page (for tests)
}

var pages prefetcher

// take removes and returns the prepared page for key, waiting for it to
// be ready; nil when there is none. A page of the same reader at another
// offset is dropped: the reader has moved elsewhere.
func (pf *prefetcher) take(key pageKey) *prepared {
	pf.mu.Lock()
	var got *prepared
	kept := pf.slots[:0]
	for _, p := range pf.slots {
		switch {
		case p.key == key:
			got = p
			p.release()
		case p.key.reader() == key.reader():
			p.release()
		default:
			kept = append(kept, p)
		}
	}
	clear(pf.slots[len(kept):])
	pf.slots = kept
	pf.mu.Unlock()
	if got == nil {
		return nil
	}
	<-got.done
	if got.doc == nil {
		return nil
	}
	pf.hits.Add(1)
	return got
}

// start prepares key's page with build on another goroutine, unless it
// is held already or every slot holds a page still being prepared (so at
// most prefetchSlots pages are in memory or in the making). A ready page
// of another reader gives its slot up, the oldest first.
func (pf *prefetcher) start(key pageKey, build func() ([]byte, int64)) {
	pf.mu.Lock()
	defer pf.mu.Unlock()
	for _, p := range pf.slots {
		if p.key == key {
			return
		}
	}
	if len(pf.slots) >= prefetchSlots {
		evict := -1
		for i, p := range pf.slots {
			if isDone(p) {
				evict = i
				break
			}
		}
		if evict < 0 {
			return
		}
		pf.slots[evict].release()
		pf.slots = slices.Delete(pf.slots, evict, evict+1)
	}
	p := &prepared{key: key, done: make(chan struct{})}
	pf.slots = append(pf.slots, p)
	go func() {
		doc, next := build()
		pf.mu.Lock()
		defer pf.mu.Unlock()
		p.doc, p.next = doc, next
		close(p.done)
		if slices.Contains(pf.slots, p) {
			p.expiry = time.AfterFunc(prefetchKeep, func() { pf.drop(p) })
		}
	}()
}

// drop forgets p if it is still held.
func (pf *prefetcher) drop(p *prepared) {
	pf.mu.Lock()
	defer pf.mu.Unlock()
	for i, q := range pf.slots {
		if q == p {
			p.release()
			pf.slots = slices.Delete(pf.slots, i, i+1)
			return
		}
	}
}

// held is how many pages are held or being prepared (for tests).
func (pf *prefetcher) held() int {
	pf.mu.Lock()
	defer pf.mu.Unlock()
	return len(pf.slots)
}

// reset drops every page once the ones being prepared are ready (for
// tests).
func (pf *prefetcher) reset() {
	pf.mu.Lock()
	slots := pf.slots
	pf.slots = nil
	pf.mu.Unlock()
	for _, p := range slots {
		<-p.done
		pf.mu.Lock()
		p.release()
		pf.mu.Unlock()
	}
}

func isDone(p *prepared) bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
