package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/runxhq/runx/internal/seedfile"
	"github.com/runxhq/runx/internal/serverdb"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// SQLiteFileName is the SQLite store's database in the data directory.
const SQLiteFileName = "notary.db"

// sqliteSchema: entries are numbered by idx from 0 without gaps (the
// writer lock); hashes hold tlog's stored hashes by their index.
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema', '` + SchemaMarker + `') ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, hash BLOB NOT NULL, name TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (idx INTEGER PRIMARY KEY, content_hash TEXT NOT NULL UNIQUE, leaf BLOB NOT NULL, seal BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS hashes (id INTEGER PRIMARY KEY, hash BLOB NOT NULL);
`

type sqliteStore struct {
	db  *sql.DB
	dir string
}

// OpenSQLite opens (creating when absent) the store in dir: notary.db and
// notary.key.
func OpenSQLite(ctx context.Context, dir string) (Store, error) {
	db, path, err := serverdb.OpenSQLite(ctx, dir, SQLiteFileName, sqliteSchema, "notary")
	if err != nil {
		return nil, err
	}
	if err := checkMarker(db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`), path); err != nil {
		db.Close()
		return nil, err
	}
	return &sqliteStore{db: db, dir: dir}, nil
}

func checkMarker(row interface{ Scan(...any) error }, where string) error {
	var marker string
	if err := row.Scan(&marker); err != nil || marker != SchemaMarker {
		return contract.Errorf(errcode.NotaryStoreInvalid, "%s holds a notary schema other than %s", where, SchemaMarker)
	}
	return nil
}

func (s *sqliteStore) Close() error { return s.db.Close() }

func (s *sqliteStore) Key(_ context.Context, fresh []byte) ([]byte, error) {
	return seedfile.LoadOrCreate(filepath.Join(s.dir, KeyFileName), fresh, errcode.NotaryKeyInvalid, "notary")
}

func (s *sqliteStore) CreateToken(ctx context.Context, t Token) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO tokens (id, hash, name, created_at) VALUES (?, ?, ?, ?)`,
		t.ID, t.Hash, t.Name, time.Now().UTC().Format(time.RFC3339))
	return err
}

func (s *sqliteStore) Token(ctx context.Context, id string) (Token, error) {
	t := Token{ID: id}
	err := s.db.QueryRowContext(ctx, `SELECT hash, name FROM tokens WHERE id = ?`, id).Scan(&t.Hash, &t.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	return t, err
}

// querier is what both a *sql.DB and a *sql.Tx answer.
type querier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func sqliteEntry(ctx context.Context, q querier, contentHash string) (Entry, error) {
	e := Entry{ContentHash: contentHash}
	err := q.QueryRowContext(ctx, `SELECT idx, leaf, seal FROM entries WHERE content_hash = ?`, contentHash).Scan(&e.Index, &e.Leaf, &e.Seal)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, ErrNotFound
	}
	return e, err
}

func sqliteSize(ctx context.Context, q querier) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(idx) + 1, 0) FROM entries`).Scan(&n)
	return n, err
}

func (s *sqliteStore) Append(ctx context.Context, contentHash string, build Build) (Entry, int64, bool, error) {
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the log's one writer
	if err != nil {
		return Entry{}, 0, false, err
	}
	defer tx.Rollback()
	size, err := sqliteSize(ctx, tx)
	if err != nil {
		return Entry{}, 0, false, err
	}
	if e, err := sqliteEntry(ctx, tx, contentHash); !errors.Is(err, ErrNotFound) {
		return e, size, false, err
	}
	e := Entry{Index: size, ContentHash: contentHash}
	if e.Leaf, e.Seal, err = build(size); err != nil {
		return Entry{}, 0, false, err
	}
	hashes, err := tlog.StoredHashes(size, e.Leaf, sqliteHashes{ctx: ctx, q: tx})
	if err != nil {
		return Entry{}, 0, false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO entries (idx, content_hash, leaf, seal) VALUES (?, ?, ?, ?)`, e.Index, contentHash, e.Leaf, e.Seal); err != nil {
		return Entry{}, 0, false, err
	}
	first := tlog.StoredHashCount(size)
	for i, h := range hashes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO hashes (id, hash) VALUES (?, ?)`, first+int64(i), h[:]); err != nil {
			return Entry{}, 0, false, err
		}
	}
	return e, size + 1, true, tx.Commit()
}

func (s *sqliteStore) Entry(ctx context.Context, contentHash string) (Entry, error) {
	return sqliteEntry(ctx, s.db, contentHash)
}

func (s *sqliteStore) Size(ctx context.Context) (int64, error) { return sqliteSize(ctx, s.db) }

func (s *sqliteStore) Hashes(ctx context.Context) tlog.HashReader {
	return sqliteHashes{ctx: ctx, q: s.db}
}

type sqliteHashes struct {
	ctx context.Context
	q   querier
}

func (r sqliteHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	if len(indexes) == 0 {
		return nil, nil
	}
	args := make([]any, len(indexes))
	for i, x := range indexes {
		args[i] = x
	}
	rows, err := r.q.QueryContext(r.ctx, `SELECT id, hash FROM hashes WHERE id IN (?`+strings.Repeat(",?", len(indexes)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collect(indexes, func(yield func(int64, []byte) error) error {
		for rows.Next() {
			var id int64
			var h []byte
			if err := rows.Scan(&id, &h); err != nil {
				return err
			}
			if err := yield(id, h); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// collect orders the hashes read by the indexes asked for; a missing or
// malformed one means the store is not the log it claims.
func collect(indexes []int64, scan func(yield func(int64, []byte) error) error) ([]tlog.Hash, error) {
	got := make(map[int64]tlog.Hash, len(indexes))
	err := scan(func(id int64, h []byte) error {
		if len(h) != tlog.HashSize {
			return contract.Errorf(errcode.NotaryStoreInvalid, "stored hash %d is %d bytes", id, len(h))
		}
		got[id] = tlog.Hash(h)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		h, ok := got[x]
		if !ok {
			return nil, contract.Errorf(errcode.NotaryStoreInvalid, "the store holds no stored hash %d", x)
		}
		out[i] = h
	}
	return out, nil
}
