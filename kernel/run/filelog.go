package run

import (
	"context"
	"fmt"
	"sync"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
)

// maxLoggedFiles is how many receipt files the journal logs before one
// syncfs of the store makes them durable and their rows are deleted: the
// log stays small, so restoring it at open is cheap, and the flush it
// saves a call is paid once for many calls.
const maxLoggedFiles = 64

// fileLog pairs the receipt store with the journal as its write-ahead log
// (docs/decisions/journal.md, "MCP session and the three syncs"): each receipt file is
// written without a flush and logged, bytes and index line, in the first
// journal commit after it, so whatever a committed record names can be
// restored after a power cut.
type fileLog struct {
	store *receipt.Store
	j     *journal.Journal
	key   string // storeKey(store)

	mu       sync.Mutex
	logged   int  // rows this process logged since its last flush
	flushing bool // a flush runs in the background
	bg       sync.WaitGroup
}

// openFileLog restores what the log holds for store (a power cut may have
// lost or torn any of it), makes it durable and forgets it, then turns the
// log on. Where the store cannot be flushed in one call it stays off, and
// roots are put with PutRoot's flushes as before.
func openFileLog(ctx context.Context, j *journal.Journal, s *receipt.Store) (*fileLog, error) {
	l := &fileLog{store: s, j: j, key: storeKey(s)}
	if err := l.flush(ctx, true); err != nil {
		return nil, err
	}
	if !s.LogWrites() {
		return nil, nil
	}
	id, err := s.Identity()
	if err != nil {
		return nil, err
	}
	j.ReceiptLog().LogFiles(l.key, id, l)
	return l, nil
}

// Unlogged is the store's unflushed files, for the journal's next commit.
func (l *fileLog) Unlogged() []journal.ReceiptFile {
	files := l.store.Unlogged()
	out := make([]journal.ReceiptFile, len(files))
	for i, f := range files {
		out[i] = journal.ReceiptFile{Name: f.Name, Bytes: f.Bytes, Line: f.Line, Hint: f.Hint}
	}
	return out
}

// Logged is told what a commit logged.
func (l *fileLog) Logged(files []journal.ReceiptFile) {
	in := make([]receipt.LoggedFile, len(files))
	for i, f := range files {
		in[i] = receipt.LoggedFile{Name: f.Name, Bytes: f.Bytes, Line: f.Line, Hint: f.Hint}
	}
	l.store.Logged(in)
	l.mu.Lock()
	l.logged += len(files)
	l.mu.Unlock()
}

// flushIfFull starts a flush in the background once this process has
// logged maxLoggedFiles rows, unless one runs: the call that fills the log
// does not wait for the store's syncfs (its answer is durable already), and
// a flush may run beside seals, as one in another process may. A failed
// flush leaves its rows for the next one.
func (l *fileLog) flushIfFull() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.logged < maxLoggedFiles || l.flushing {
		return
	}
	l.flushing = true
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		_ = l.flush(context.Background(), false)
		l.mu.Lock()
		l.flushing = false
		l.mu.Unlock()
	}()
}

// close waits for a background flush, then flushes what is left, so the
// next open has nothing to restore; a failure leaves the log for it.
func (l *fileLog) close() {
	l.bg.Wait()
	_ = l.flush(context.Background(), false)
}

// flush restores every logged file of this store (rewriting one that is
// missing or torn, appending an index line that is missing; at open that
// is the power cut's repair, later it finds everything in place), makes
// the store durable with one syncfs, then deletes the rows it read. Rows
// logged under another identity belong to a store moved aside: they are
// not written into this one, and are deleted. Nothing is deleted unless
// the flush after the restore succeeded.
func (l *fileLog) flush(ctx context.Context, atOpen bool) error {
	rows, ids, err := l.j.ReceiptLog().LoggedFiles(ctx, l.key)
	if err != nil || len(rows) == 0 {
		return err
	}
	id, err := l.store.Identity()
	if err != nil {
		return err
	}
	var files []receipt.LoggedFile
	for i, r := range rows {
		if ids[i] == id {
			files = append(files, receipt.LoggedFile{Name: r.Name, Bytes: r.Bytes, Line: r.Line, Hint: r.Hint})
		}
	}
	if _, err := l.store.Restore(files); err != nil {
		return fmt.Errorf("restore receipt store %s from the run records: %w", l.store.Dir(), err)
	}
	if err := l.store.Sync(); err != nil {
		return err
	}
	if err := l.j.ReceiptLog().ForgetLoggedFiles(ctx, l.key, rows[len(rows)-1].Seq); err != nil {
		return err
	}
	if !atOpen {
		l.mu.Lock()
		l.logged = 0
		l.mu.Unlock()
	}
	return nil
}
