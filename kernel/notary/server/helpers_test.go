package server

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/notary/client"
	"github.com/runxhq/runx/kernel/notary/server/store"
	"github.com/runxhq/runx/kernel/receipt"
)

// testNotary is a real server on loopback over a real store.
type testNotary struct {
	srv   *Server
	st    store.Store
	url   string
	token string
}

func startOn(t testing.TB, st store.Store, cfg Config) *testNotary {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.URL = st, "http://"+ln.Addr().String()
	srv, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := HTTPServer(srv.Handler())
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { hs.Close() })
	tok, err := CreateToken(context.Background(), st, "ci")
	if err != nil {
		t.Fatal(err)
	}
	return &testNotary{srv: srv, st: st, url: cfg.URL, token: tok}
}

func openSQLite(t testing.TB, dir string) store.Store {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// start is a notary over SQLite in a fresh directory.
func start(t testing.TB, cfg Config) *testNotary {
	return startOn(t, openSQLite(t, t.TempDir()), cfg)
}

func startPostgres(t testing.TB) *testNotary {
	pg := testserver.StartPostgres(t)
	st, err := store.OpenPostgres(context.Background(), store.PostgresConfig{URL: pg.URL(), Password: pg.Password})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return startOn(t, st, Config{})
}

// client is a client of n with its token.
func (n *testNotary) client(t testing.TB) *client.Client {
	base, err := client.CheckURL(n.url, true)
	if err != nil {
		t.Fatal(err)
	}
	return client.New(base, n.token)
}

// sealedReceipt is a receipt sealed by a key derived from label.
func sealedReceipt(t testing.TB, label string) *receipt.Sealed {
	t.Helper()
	seed := sha256.Sum256([]byte("runx notary server test: " + label))
	s, err := receipt.NewSigner(ed25519.NewKeyFromSeed(seed[:]))
	if err != nil {
		t.Fatal(err)
	}
	_, raw, err := s.Seal(receipt.Body{Kind: receipt.KindRun, RunID: "run_" + label, SkillName: "hello", Outcome: seal.OutcomeCompleted,
		StartedAt: "2026-01-02T03:04:05.000Z", SealedAt: "2026-01-02T03:04:06.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := receipt.CheckSealed(raw)
	if err != nil {
		t.Fatal(err)
	}
	return sealed
}

// copyKey makes dir a second data directory signing with n's key: a
// notary whose operator forks the log.
func copyKey(t testing.TB, from, to string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(from, store.KeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(to, store.KeyFileName), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

func get(t testing.TB, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
