package journal

import (
	"context"
	"database/sql"
	"fmt"
)

// ReceiptFile is a receipt file the journal logs before any record that
// names it is committed (receipt.LoggedFile): its name in the store, its
// exact bytes, its index line (empty when it was written before) and the
// index's length before the line (Hint).
type ReceiptFile struct {
	Seq   int64
	Name  string
	Bytes []byte
	Line  []byte
	Hint  int64
}

// FileSource is the receipt store whose unflushed files the journal logs:
// every write transaction takes Unlogged and inserts it, and after the
// commit tells Logged, so a receipt a committed record names is in the
// same commit or an earlier one.
type FileSource interface {
	Unlogged() []ReceiptFile
	Logged([]ReceiptFile)
}

// ReceiptLog is the journal's part in the receipt store's durability: the
// receipt files each commit logs until the store has made them durable
// (this file), and the sealed roots whose index lines no flush is yet
// known to cover (rootlines.go).
type ReceiptLog struct{ j *Journal }

// ReceiptLog returns the journal's receipt log.
func (j *Journal) ReceiptLog() ReceiptLog { return ReceiptLog{j} }

type fileLog struct {
	src      FileSource
	store    string // the store's absolute directory
	identity string // the store's index identity (receipt.Store.Identity)
}

// LogFiles makes every later write transaction log src's unflushed files
// under (store, identity). Set once, before the kernel runs anything.
func (l ReceiptLog) LogFiles(store, identity string, src FileSource) {
	l.j.files = &fileLog{src: src, store: store, identity: identity}
}

// logFiles inserts the files written since the last commit; tx is the
// transaction about to commit.
func (l ReceiptLog) logFiles(ctx context.Context, tx *sql.Tx) ([]ReceiptFile, error) {
	j := l.j
	if j.files == nil {
		return nil, nil
	}
	files := j.files.src.Unlogged()
	for _, f := range files {
		line := f.Line
		if line == nil {
			line = []byte{}
		}
		if _, err := j.exec(ctx, tx, sqlLogFile, j.files.store, j.files.identity, f.Name, f.Bytes, line, f.Hint); err != nil {
			return nil, fmt.Errorf("log receipt file %s: %w", f.Name, err)
		}
	}
	return files, nil
}

// LoggedFiles lists the files logged for store, in the order logged, with
// the identity each was logged under.
func (l ReceiptLog) LoggedFiles(ctx context.Context, store string) ([]ReceiptFile, []string, error) {
	rows, err := l.j.db.QueryContext(ctx, `SELECT seq, identity, name, bytes, line, hint FROM receipt_files WHERE store = ? ORDER BY seq`, store)
	if err != nil {
		return nil, nil, fmt.Errorf("read logged receipt files: %w", err)
	}
	defer rows.Close()
	var out []ReceiptFile
	var ids []string
	for rows.Next() {
		var f ReceiptFile
		var id string
		if err := rows.Scan(&f.Seq, &id, &f.Name, &f.Bytes, &f.Line, &f.Hint); err != nil {
			return nil, nil, err
		}
		out = append(out, f)
		ids = append(ids, id)
	}
	return out, ids, rows.Err()
}

// CountLoggedFiles is how many files are logged for store.
func (l ReceiptLog) CountLoggedFiles(ctx context.Context, store string) (int, error) {
	var n int
	err := l.j.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM receipt_files WHERE store = ?`, store).Scan(&n)
	return n, err
}

// ForgetLoggedFiles deletes the rows of store up to seq: the caller made
// their files and lines durable (one syncfs) after reading them. Losing
// this commit to a power cut only leaves rows a later restore finds in
// place, so it need not wait for the disk.
func (l ReceiptLog) ForgetLoggedFiles(ctx context.Context, store string, upTo int64) error {
	return l.j.tx(Deferred(ctx), func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM receipt_files WHERE store = ? AND seq <= ?`, store, upTo)
		return err
	})
}
