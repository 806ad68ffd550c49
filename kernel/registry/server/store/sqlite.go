package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/runxhq/runx/internal/seedfile"
	"github.com/runxhq/runx/internal/serverdb"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// SQLiteFileName is the SQLite store's database in the data directory.
const SQLiteFileName = "registry.db"

// SchemaMarker is the meta row naming the schema revision both stores write.
const SchemaMarker = "runx.registry.store.v1"

// sqliteSchema: versions is the write-once table (its primary key decides
// immutability); latest is each package's newest version, which search
// reads, with latest_fts its full-text index (FTS5, rowid = latest.id).
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema', '` + SchemaMarker + `') ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, hash BLOB NOT NULL, namespace TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS token_revocations (id TEXT PRIMARY KEY REFERENCES tokens (id), revoked_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS namespaces (namespace TEXT PRIMARY KEY, tier TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL, key TEXT NOT NULL, version TEXT NOT NULL,
  publisher TEXT NOT NULL, content_digest TEXT NOT NULL, package_format INTEGER NOT NULL,
  published_at TEXT NOT NULL, record BLOB NOT NULL,
  UNIQUE (kind, key, version));
CREATE TABLE IF NOT EXISTS files (
  kind TEXT NOT NULL, key TEXT NOT NULL, version TEXT NOT NULL, path TEXT NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (kind, key, version, path));
CREATE TABLE IF NOT EXISTS latest (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL, publisher TEXT NOT NULL,
  version TEXT NOT NULL, description TEXT NOT NULL, methods TEXT NOT NULL,
  UNIQUE (kind, key));
CREATE VIRTUAL TABLE IF NOT EXISTS latest_fts USING fts5(body, tokenize = 'unicode61');
`

type sqliteStore struct {
	db  *sql.DB
	dir string
}

// OpenSQLite opens (creating when absent) the store in dir: registry.db and
// registry.key.
func OpenSQLite(ctx context.Context, dir string) (Store, error) {
	db, path, err := serverdb.OpenSQLite(ctx, dir, SQLiteFileName, sqliteSchema, "registry")
	if err != nil {
		return nil, err
	}
	s := &sqliteStore{db: db, dir: dir}
	if err := checkMarker(ctx, db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`), path); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func checkMarker(_ context.Context, row interface{ Scan(...any) error }, where string) error {
	var marker string
	if err := row.Scan(&marker); err != nil || marker != SchemaMarker {
		return contract.Errorf(errcode.RegistryStoreInvalid, "%s holds a registry schema other than %s", where, SchemaMarker)
	}
	return nil
}

func (s *sqliteStore) Close() error { return s.db.Close() }

func (s *sqliteStore) Key(_ context.Context, fresh []byte) ([]byte, error) {
	return seedfile.LoadOrCreate(filepath.Join(s.dir, KeyFileName), fresh, errcode.RegistryKeyInvalid, "registry")
}

func (s *sqliteStore) CreateToken(ctx context.Context, t Token) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO tokens (id, hash, namespace, created_at) VALUES (?, ?, ?, ?)`,
		t.ID, t.Hash, t.Namespace, time.Now().UTC().Format(time.RFC3339))
	return err
}

// sqliteTokenColumns are a token's columns, its revocation joined.
const sqliteTokenColumns = `t.id, t.hash, t.namespace, t.created_at, COALESCE(r.revoked_at, '') FROM tokens t LEFT JOIN token_revocations r ON r.id = t.id`

func scanSQLiteToken(row interface{ Scan(...any) error }) (Token, error) {
	var t Token
	var created, revoked string
	if err := row.Scan(&t.ID, &t.Hash, &t.Namespace, &created, &revoked); err != nil {
		return Token{}, err
	}
	t.CreatedAt, _ = time.Parse(time.RFC3339, created)
	if revoked != "" {
		t.RevokedAt, _ = time.Parse(time.RFC3339, revoked)
	}
	return t, nil
}

func (s *sqliteStore) Token(ctx context.Context, id string) (Token, error) {
	t, err := scanSQLiteToken(s.db.QueryRowContext(ctx, `SELECT `+sqliteTokenColumns+` WHERE t.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	return t, err
}

func (s *sqliteStore) Tokens(ctx context.Context, namespace string) ([]Token, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sqliteTokenColumns+` WHERE ? = '' OR t.namespace = ? ORDER BY t.created_at, t.id`, namespace, namespace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		t, err := scanSQLiteToken(rows)
		if err != nil {
			return nil, err
		}
		t.Hash = nil
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *sqliteStore) RevokeToken(ctx context.Context, id string, now time.Time) (Token, error) {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO token_revocations (id, revoked_at) SELECT id, ? FROM tokens WHERE id = ? ON CONFLICT DO NOTHING`,
		now.UTC().Format(time.RFC3339), id); err != nil {
		return Token{}, err
	}
	return s.Token(ctx, id)
}

func (s *sqliteStore) SetTier(ctx context.Context, namespace string, tier Tier) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO namespaces (namespace, tier) VALUES (?, ?)
		ON CONFLICT (namespace) DO UPDATE SET tier = excluded.tier`, namespace, string(tier))
	return err
}

func (s *sqliteStore) Tier(ctx context.Context, namespace string) (Tier, error) {
	var t string
	err := s.db.QueryRowContext(ctx, `SELECT tier FROM namespaces WHERE namespace = ?`, namespace).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultTier(namespace), nil
	}
	return Tier(t), err
}

func (s *sqliteStore) Publish(ctx context.Context, v *Version) error {
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one writer at a time
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO versions (kind, key, version, publisher, content_digest, package_format, published_at, record)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		v.Kind, v.Key(), v.Version, v.Publisher, v.ContentDigest, v.PackageFormat, v.PublishedAt.UTC().Format(time.RFC3339Nano), v.Record)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrVersionExists
	}
	for _, f := range v.Files {
		if _, err := tx.ExecContext(ctx, `INSERT INTO files (kind, key, version, path, data) VALUES (?, ?, ?, ?, ?)`,
			v.Kind, v.Key(), v.Version, f.Path, f.Data); err != nil {
			return err
		}
	}
	var id int64
	var current string
	err = tx.QueryRowContext(ctx, `SELECT id, version FROM latest WHERE kind = ? AND key = ?`, v.Kind, v.Key()).Scan(&id, &current)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := tx.ExecContext(ctx, `INSERT INTO latest (kind, key, name, publisher, version, description, methods) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			v.Kind, v.Key(), v.Name, v.Publisher, v.Version, v.Description, string(v.Methods))
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
	case err != nil:
		return err
	case !newer(v.Kind, v.Version, current):
		return tx.Commit()
	default:
		if _, err := tx.ExecContext(ctx, `UPDATE latest SET version = ?, description = ?, methods = ? WHERE id = ?`,
			v.Version, v.Description, string(v.Methods), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM latest_fts WHERE rowid = ?`, id); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO latest_fts (rowid, body) VALUES (?, ?)`, id, searchText(v)); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *sqliteStore) Versions(ctx context.Context, kind, key string) ([]VersionInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version, content_digest, package_format, published_at FROM versions
		WHERE kind = ? AND key = ? ORDER BY seq DESC`, kind, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []VersionInfo
	for rows.Next() {
		var vi VersionInfo
		var at string
		if err := rows.Scan(&vi.Version, &vi.ContentDigest, &vi.PackageFormat, &at); err != nil {
			return nil, err
		}
		if vi.PublishedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, err
		}
		out = append(out, vi)
	}
	return sortVersions(kind, out, rows.Err())
}

func (s *sqliteStore) Record(ctx context.Context, kind, key, version string) ([]byte, error) {
	var rec []byte
	err := s.db.QueryRowContext(ctx, `SELECT record FROM versions WHERE kind = ? AND key = ? AND version = ?`, kind, key, version).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return rec, err
}

func (s *sqliteStore) Files(ctx context.Context, kind, key, version string) ([]File, error) {
	if _, err := s.Record(ctx, kind, key, version); err != nil {
		return nil, err
	}
	return scanFiles(fromSQL(s.db.QueryContext(ctx, `SELECT path, data FROM files WHERE kind = ? AND key = ? AND version = ? ORDER BY path`, kind, key, version)))
}

func (s *sqliteStore) Search(ctx context.Context, words []string, limit int) ([]Hit, error) {
	const cols = `l.kind, l.name, l.publisher, l.version, l.description, l.methods, COALESCE(n.tier, '')`
	if len(words) == 0 {
		return scanHits(fromSQL(s.db.QueryContext(ctx, `SELECT `+cols+` FROM latest l LEFT JOIN namespaces n ON n.namespace = l.publisher
			ORDER BY l.key, l.kind LIMIT ?`, limit)))
	}
	// Each word is a quoted prefix term; FTS5 ANDs terms side by side.
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = `"` + w + `"*`
	}
	return scanHits(fromSQL(s.db.QueryContext(ctx, `SELECT `+cols+` FROM latest_fts f JOIN latest l ON l.id = f.rowid
		LEFT JOIN namespaces n ON n.namespace = l.publisher
		WHERE latest_fts MATCH ? ORDER BY f.rank, l.key LIMIT ?`, strings.Join(terms, " "), limit)))
}
