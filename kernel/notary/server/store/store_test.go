package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// stores opens each implementation fresh for one test: SQLite in a temporary
// directory, PostgreSQL on a real server on loopback.
func stores() map[string]func(t *testing.T) Store {
	return map[string]func(t *testing.T) Store{
		"sqlite": func(t *testing.T) Store {
			s, err := OpenSQLite(context.Background(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T) Store {
			pg := testserver.StartPostgres(t)
			s, err := OpenPostgres(context.Background(), PostgresConfig{URL: pg.URL(), Password: pg.Password})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

// Concurrent appends are numbered without gaps, each content hash is logged
// once, and the stored hashes make the tree a reader recomputes from the
// leaves.
func TestStoreLog(t *testing.T) {
	for name, open := range stores() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			const n = 24
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					hash := fmt.Sprintf("sha256:%064x", i%(n/2)) // every hash twice
					_, _, _, errs[i] = s.Append(ctx, hash, func(index int64) ([]byte, []byte, error) {
						return []byte(fmt.Sprintf("leaf %s at %d", hash, index)), []byte(`{}`), nil
					})
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("append %d: %v", i, err)
				}
			}
			size, err := s.Size(ctx)
			if err != nil || size != n/2 {
				t.Fatalf("size %d %v, want %d", size, err, n/2)
			}
			var replay []tlog.Hash
			reader := tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
				out := make([]tlog.Hash, len(ix))
				for i, x := range ix {
					out[i] = replay[x]
				}
				return out, nil
			})
			seen := map[int64]bool{}
			for i := range n / 2 {
				e, err := s.Entry(ctx, fmt.Sprintf("sha256:%064x", i))
				if err != nil || seen[e.Index] || !bytes.HasSuffix(e.Leaf, []byte(fmt.Sprintf("at %d", e.Index))) {
					t.Fatalf("entry %d: %+v %v", i, e, err)
				}
				seen[e.Index] = true
			}
			for idx := range int64(n / 2) {
				var leaf []byte
				for i := range n / 2 {
					if e, _ := s.Entry(ctx, fmt.Sprintf("sha256:%064x", i)); e.Index == idx {
						leaf = e.Leaf
					}
				}
				add, err := tlog.StoredHashes(idx, leaf, reader)
				if err != nil {
					t.Fatal(err)
				}
				replay = append(replay, add...)
			}
			want, _ := tlog.TreeHash(n/2, reader)
			got, err := tlog.TreeHash(n/2, s.Hashes(ctx))
			if err != nil || got != want {
				t.Fatalf("tree hash %v %v, want %v", got, err, want)
			}
			again, size, fresh, err := s.Append(ctx, fmt.Sprintf("sha256:%064x", 3), func(int64) ([]byte, []byte, error) {
				return nil, nil, errors.New("a logged hash is never built again")
			})
			if err != nil || fresh || size != n/2 || again.ContentHash != fmt.Sprintf("sha256:%064x", 3) {
				t.Fatalf("again: %+v %d %v %v", again, size, fresh, err)
			}
			if _, err := s.Entry(ctx, "sha256:none"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown entry: %v", err)
			}

			if _, err := s.Token(ctx, "0123"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown token: %v", err)
			}
			if err := s.CreateToken(ctx, Token{ID: "0123", Hash: []byte{1, 2}, Name: "ci"}); err != nil {
				t.Fatal(err)
			}
			if tok, err := s.Token(ctx, "0123"); err != nil || tok.Name != "ci" {
				t.Fatalf("token: %+v %v", tok, err)
			}
			k1, err := s.Key(ctx, bytes.Repeat([]byte{1}, 32))
			if err != nil {
				t.Fatal(err)
			}
			if k2, err := s.Key(ctx, bytes.Repeat([]byte{2}, 32)); err != nil || !bytes.Equal(k1, k2) {
				t.Fatalf("the key changed: %x %x %v", k1, k2, err)
			}
		})
	}
}

func TestStoreRefusals(t *testing.T) {
	if _, err := OpenPostgres(context.Background(), PostgresConfig{URL: "postgres://u:pw@127.0.0.1:1/db"}); contract.CodeOf(err) != errcode.CredentialInEndpoint {
		t.Fatalf("password in URL: %v", err)
	}
}
