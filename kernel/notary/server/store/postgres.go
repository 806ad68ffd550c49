package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Advisory lock keys: schema creation, and the log's one writer, which
// every replica's append takes inside its transaction.
const (
	postgresSchemaLock = 0x52554E584E53 // "RUNXNS"
	postgresAppendLock = 0x52554E584E41 // "RUNXNA"
)

const postgresSchema = `
CREATE TABLE IF NOT EXISTS notary_meta (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO notary_meta (key, value) VALUES ('schema', '` + SchemaMarker + `') ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS notary_key (id int PRIMARY KEY CHECK (id = 1), seed bytea NOT NULL);
CREATE TABLE IF NOT EXISTS notary_tokens (id text PRIMARY KEY, hash bytea NOT NULL, name text NOT NULL, created_at timestamptz NOT NULL);
CREATE TABLE IF NOT EXISTS notary_entries (idx bigint PRIMARY KEY, content_hash text COLLATE "C" NOT NULL UNIQUE, leaf bytea NOT NULL, seal bytea NOT NULL);
CREATE TABLE IF NOT EXISTS notary_hashes (id bigint PRIMARY KEY, hash bytea NOT NULL);
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
		return nil, contract.Errorf(errcode.NotaryRequestInvalid, "--database must be a postgres:// URL")
	}
	if _, has := u.User.Password(); has || strings.Contains(strings.ToLower(u.RawQuery), "password") {
		return nil, contract.Errorf(errcode.CredentialInEndpoint,
			"the database URL carries a password; remove it and give it in RUNX_NOTARY_DATABASE_PASSWORD")
	}
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, contract.Errorf(errcode.NotaryRequestInvalid, "--database: %v", err)
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
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(postgresSchemaLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, postgresSchema)
		return err
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("creating the notary schema: %w", err)
	}
	if err := checkMarker(pool.QueryRow(ctx, `SELECT value FROM notary_meta WHERE key = 'schema'`), "the database"); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *postgresStore) Close() error { s.pool.Close(); return nil }

func (s *postgresStore) Key(ctx context.Context, fresh []byte) ([]byte, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO notary_key (id, seed) VALUES (1, $1) ON CONFLICT DO NOTHING`, fresh); err != nil {
		return nil, err
	}
	var seed []byte
	if err := s.pool.QueryRow(ctx, `SELECT seed FROM notary_key WHERE id = 1`).Scan(&seed); err != nil {
		return nil, err
	}
	if len(seed) != len(fresh) {
		return nil, contract.Errorf(errcode.NotaryKeyInvalid, "the database's notary_key row is not a signing key runx wrote")
	}
	return seed, nil
}

func (s *postgresStore) CreateToken(ctx context.Context, t Token) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO notary_tokens (id, hash, name, created_at) VALUES ($1, $2, $3, now())`, t.ID, t.Hash, t.Name)
	return err
}

func (s *postgresStore) Token(ctx context.Context, id string) (Token, error) {
	t := Token{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT hash, name FROM notary_tokens WHERE id = $1`, id).Scan(&t.Hash, &t.Name)
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	return t, err
}

// pgQuerier is what a pool and a transaction both answer.
type pgQuerier interface {
	QueryRow(ctx context.Context, q string, args ...any) pgx.Row
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
}

func postgresEntry(ctx context.Context, q pgQuerier, contentHash string) (Entry, error) {
	e := Entry{ContentHash: contentHash}
	err := q.QueryRow(ctx, `SELECT idx, leaf, seal FROM notary_entries WHERE content_hash = $1`, contentHash).Scan(&e.Index, &e.Leaf, &e.Seal)
	if errors.Is(err, pgx.ErrNoRows) {
		return Entry{}, ErrNotFound
	}
	return e, err
}

func postgresSize(ctx context.Context, q pgQuerier) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT COALESCE(MAX(idx) + 1, 0) FROM notary_entries`).Scan(&n)
	return n, err
}

// Append takes the log's advisory lock inside its transaction, so replicas
// append one at a time and each sees the entries before its own.
func (s *postgresStore) Append(ctx context.Context, contentHash string, build Build) (e Entry, size int64, fresh bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(postgresAppendLock)); err != nil {
			return err
		}
		n, err := postgresSize(ctx, tx)
		if err != nil {
			return err
		}
		size = n
		if e, err = postgresEntry(ctx, tx, contentHash); !errors.Is(err, ErrNotFound) {
			return err
		}
		e = Entry{Index: n, ContentHash: contentHash}
		if e.Leaf, e.Seal, err = build(n); err != nil {
			return err
		}
		hashes, err := tlog.StoredHashes(n, e.Leaf, postgresHashes{ctx: ctx, q: tx})
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO notary_entries (idx, content_hash, leaf, seal) VALUES ($1, $2, $3, $4)`, e.Index, contentHash, e.Leaf, e.Seal); err != nil {
			return err
		}
		rows := make([][]any, len(hashes))
		first := tlog.StoredHashCount(n)
		for i, h := range hashes {
			rows[i] = []any{first + int64(i), h[:]}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"notary_hashes"}, []string{"id", "hash"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		size, fresh = n+1, true
		return nil
	})
	if err != nil {
		return Entry{}, 0, false, err
	}
	return e, size, fresh, nil
}

func (s *postgresStore) Entry(ctx context.Context, contentHash string) (Entry, error) {
	return postgresEntry(ctx, s.pool, contentHash)
}

func (s *postgresStore) Size(ctx context.Context) (int64, error) { return postgresSize(ctx, s.pool) }

func (s *postgresStore) Hashes(ctx context.Context) tlog.HashReader {
	return postgresHashes{ctx: ctx, q: s.pool}
}

type postgresHashes struct {
	ctx context.Context
	q   pgQuerier
}

func (r postgresHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	if len(indexes) == 0 {
		return nil, nil
	}
	rows, err := r.q.Query(r.ctx, `SELECT id, hash FROM notary_hashes WHERE id = ANY($1)`, indexes)
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
