package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// postgresSchemaLock serializes schema creation across replicas starting
// together (pg_advisory_xact_lock): concurrent CREATE ... IF NOT EXISTS can
// still collide in the catalogs.
const postgresSchemaLock = 0x52554E5852 // "RUNXR"

// postgresSchema mirrors the SQLite schema. The key is one row whose primary
// key is the constant 1, so the first replica's INSERT wins and every other
// reads it. latest.body is the search text; its GIN index over a 'simple'
// tsvector answers prefix queries.
const postgresSchema = `
CREATE TABLE IF NOT EXISTS registry_meta (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO registry_meta (key, value) VALUES ('schema', '` + SchemaMarker + `') ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS registry_key (id int PRIMARY KEY CHECK (id = 1), seed bytea NOT NULL);
CREATE TABLE IF NOT EXISTS registry_tokens (id text PRIMARY KEY, hash bytea NOT NULL, namespace text NOT NULL, created_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS registry_token_revocations (id text PRIMARY KEY REFERENCES registry_tokens (id), revoked_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS registry_namespaces (namespace text PRIMARY KEY, tier text NOT NULL);
CREATE TABLE IF NOT EXISTS registry_versions (
  seq bigserial PRIMARY KEY,
  kind text NOT NULL, key text COLLATE "C" NOT NULL, version text COLLATE "C" NOT NULL,
  publisher text NOT NULL, content_digest text NOT NULL, package_format int NOT NULL,
  published_at timestamptz NOT NULL, record bytea NOT NULL,
  UNIQUE (kind, key, version));
CREATE TABLE IF NOT EXISTS registry_files (
  kind text NOT NULL, key text COLLATE "C" NOT NULL, version text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL, data bytea NOT NULL,
  PRIMARY KEY (kind, key, version, path));
CREATE TABLE IF NOT EXISTS registry_latest (
  kind text NOT NULL, key text COLLATE "C" NOT NULL, name text NOT NULL, publisher text NOT NULL,
  version text NOT NULL, description text NOT NULL, methods text NOT NULL, body text NOT NULL,
  PRIMARY KEY (kind, key));
CREATE INDEX IF NOT EXISTS registry_latest_body ON registry_latest USING gin (to_tsvector('simple', body));
`

type postgresStore struct{ pool *pgxpool.Pool }

// PostgresConfig names the database. The password is given apart: a URL
// carrying one is refused, since a command line is visible to every user of
// the machine.
type PostgresConfig struct {
	URL      string
	Password string
}

// OpenPostgres connects and creates the schema when absent.
func OpenPostgres(ctx context.Context, cfg PostgresConfig) (Store, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, contract.Errorf(errcode.RegistryRequestInvalid, "--database must be a postgres:// URL")
	}
	if _, has := u.User.Password(); has || strings.Contains(strings.ToLower(u.RawQuery), "password") {
		return nil, contract.Errorf(errcode.CredentialInEndpoint,
			"the database URL carries a password; remove it and give it in RUNX_REGISTRY_DATABASE_PASSWORD")
	}
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, contract.Errorf(errcode.RegistryRequestInvalid, "--database: %v", err)
	}
	if cfg.Password != "" {
		pcfg.ConnConfig.Password = cfg.Password
	}
	pcfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, err
	}
	s := &postgresStore{pool: pool}
	if err := s.createSchema(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *postgresStore) createSchema(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(postgresSchemaLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, postgresSchema)
		return err
	})
	if err != nil {
		return fmt.Errorf("creating the registry schema: %w", err)
	}
	return checkMarker(ctx, s.pool.QueryRow(ctx, `SELECT value FROM registry_meta WHERE key = 'schema'`), "the database")
}

func (s *postgresStore) Close() error { s.pool.Close(); return nil }

func (s *postgresStore) Key(ctx context.Context, fresh []byte) ([]byte, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO registry_key (id, seed) VALUES (1, $1) ON CONFLICT DO NOTHING`, fresh); err != nil {
		return nil, err
	}
	var seed []byte
	if err := s.pool.QueryRow(ctx, `SELECT seed FROM registry_key WHERE id = 1`).Scan(&seed); err != nil {
		return nil, err
	}
	if len(seed) != len(fresh) {
		return nil, contract.Errorf(errcode.RegistryKeyInvalid, "the database's registry_key row is not a signing key runx wrote")
	}
	return seed, nil
}

func (s *postgresStore) CreateToken(ctx context.Context, t Token) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO registry_tokens (id, hash, namespace, created_at) VALUES ($1, $2, $3, now())`,
		t.ID, t.Hash, t.Namespace)
	return err
}

// postgresTokenColumns are a token's columns, its revocation joined.
const postgresTokenColumns = `t.id, t.hash, t.namespace, t.created_at, r.revoked_at FROM registry_tokens t LEFT JOIN registry_token_revocations r ON r.id = t.id`

func scanPostgresToken(row pgx.Row) (Token, error) {
	var t Token
	var revoked *time.Time
	if err := row.Scan(&t.ID, &t.Hash, &t.Namespace, &t.CreatedAt, &revoked); err != nil {
		return Token{}, err
	}
	if revoked != nil {
		t.RevokedAt = *revoked
	}
	return t, nil
}

func (s *postgresStore) Token(ctx context.Context, id string) (Token, error) {
	t, err := scanPostgresToken(s.pool.QueryRow(ctx, `SELECT `+postgresTokenColumns+` WHERE t.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	return t, err
}

func (s *postgresStore) Tokens(ctx context.Context, namespace string) ([]Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+postgresTokenColumns+` WHERE $1 = '' OR t.namespace = $1 ORDER BY t.created_at, t.id`, namespace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		t, err := scanPostgresToken(rows)
		if err != nil {
			return nil, err
		}
		t.Hash = nil
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *postgresStore) RevokeToken(ctx context.Context, id string, now time.Time) (Token, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO registry_token_revocations (id, revoked_at) SELECT id, $2 FROM registry_tokens WHERE id = $1 ON CONFLICT DO NOTHING`,
		id, now.UTC()); err != nil {
		return Token{}, err
	}
	return s.Token(ctx, id)
}

func (s *postgresStore) SetTier(ctx context.Context, namespace string, tier Tier) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO registry_namespaces (namespace, tier) VALUES ($1, $2)
		ON CONFLICT (namespace) DO UPDATE SET tier = excluded.tier`, namespace, string(tier))
	return err
}

func (s *postgresStore) Tier(ctx context.Context, namespace string) (Tier, error) {
	var t string
	err := s.pool.QueryRow(ctx, `SELECT tier FROM registry_namespaces WHERE namespace = $1`, namespace).Scan(&t)
	if errors.Is(err, pgx.ErrNoRows) {
		return DefaultTier(namespace), nil
	}
	return Tier(t), err
}

// Publish inserts the version (its unique key refuses a second one), then
// takes the package's latest row under FOR UPDATE, so that two replicas
// publishing two versions of one package at once leave the newer as latest.
// The first publish of a package inserts the latest row with ON CONFLICT DO
// NOTHING before locking it, so two first publishes never collide.
func (s *postgresStore) Publish(ctx context.Context, v *Version) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO registry_versions (kind, key, version, publisher, content_digest, package_format, published_at, record)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
			v.Kind, v.Key(), v.Version, v.Publisher, v.ContentDigest, v.PackageFormat, v.PublishedAt.UTC(), v.Record)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrVersionExists
		}
		rowsIn := make([][]any, len(v.Files))
		for i, f := range v.Files {
			rowsIn[i] = []any{v.Kind, v.Key(), v.Version, f.Path, f.Data}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"registry_files"}, []string{"kind", "key", "version", "path", "data"}, pgx.CopyFromRows(rowsIn)); err != nil {
			return err
		}
		body := searchText(v)
		tag, err = tx.Exec(ctx, `INSERT INTO registry_latest (kind, key, name, publisher, version, description, methods, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
			v.Kind, v.Key(), v.Name, v.Publisher, v.Version, v.Description, string(v.Methods), body)
		if err != nil || tag.RowsAffected() == 1 {
			return err
		}
		var current string
		if err := tx.QueryRow(ctx, `SELECT version FROM registry_latest WHERE kind = $1 AND key = $2 FOR UPDATE`, v.Kind, v.Key()).Scan(&current); err != nil {
			return err
		}
		if !newer(v.Kind, v.Version, current) {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE registry_latest SET version = $3, description = $4, methods = $5, body = $6 WHERE kind = $1 AND key = $2`,
			v.Kind, v.Key(), v.Version, v.Description, string(v.Methods), body)
		return err
	})
}

func (s *postgresStore) Versions(ctx context.Context, kind, key string) ([]VersionInfo, error) {
	r, err := s.pool.Query(ctx, `SELECT version, content_digest, package_format, published_at FROM registry_versions
		WHERE kind = $1 AND key = $2 ORDER BY seq DESC`, kind, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []VersionInfo
	for r.Next() {
		var vi VersionInfo
		if err := r.Scan(&vi.Version, &vi.ContentDigest, &vi.PackageFormat, &vi.PublishedAt); err != nil {
			return nil, err
		}
		vi.PublishedAt = vi.PublishedAt.UTC()
		out = append(out, vi)
	}
	return sortVersions(kind, out, r.Err())
}

func (s *postgresStore) Record(ctx context.Context, kind, key, version string) ([]byte, error) {
	var rec []byte
	err := s.pool.QueryRow(ctx, `SELECT record FROM registry_versions WHERE kind = $1 AND key = $2 AND version = $3`, kind, key, version).Scan(&rec)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return rec, err
}

func (s *postgresStore) Files(ctx context.Context, kind, key, version string) ([]File, error) {
	if _, err := s.Record(ctx, kind, key, version); err != nil {
		return nil, err
	}
	r, err := s.pool.Query(ctx, `SELECT path, data FROM registry_files WHERE kind = $1 AND key = $2 AND version = $3 ORDER BY path`, kind, key, version)
	return scanFiles(r, err)
}

func (s *postgresStore) Search(ctx context.Context, words []string, limit int) ([]Hit, error) {
	const cols = `l.kind, l.name, l.publisher, l.version, l.description, l.methods, COALESCE(n.tier, '')`
	if len(words) == 0 {
		r, err := s.pool.Query(ctx, `SELECT `+cols+` FROM registry_latest l LEFT JOIN registry_namespaces n ON n.namespace = l.publisher
			ORDER BY l.key, l.kind LIMIT $1`, limit)
		return scanHits(r, err)
	}
	// Each word is letters and digits only (SearchWords), so "w:*" joined
	// by & is a tsquery with nothing of the caller's syntax in it.
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = w + ":*"
	}
	r, err := s.pool.Query(ctx, `SELECT `+cols+` FROM registry_latest l LEFT JOIN registry_namespaces n ON n.namespace = l.publisher
		WHERE to_tsvector('simple', l.body) @@ to_tsquery('simple', $1)
		ORDER BY ts_rank(to_tsvector('simple', l.body), to_tsquery('simple', $1)) DESC, l.key LIMIT $2`, strings.Join(terms, " & "), limit)
	return scanHits(r, err)
}
