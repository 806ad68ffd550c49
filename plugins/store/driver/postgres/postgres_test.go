package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

var board = driver.Resource{Name: "board_events", Kind: driver.KindEventStream}

func stream(key string) driver.Stream {
	return driver.Stream{Source: "tenant://acme/board", Resource: board, Key: key}
}

// One server for the package's tests; each test uses its own schema.
func TestDriver(t *testing.T) {
	server := testserver.StartPostgres(t)
	t.Run("CredentialInEndpoint", func(t *testing.T) { testCredentialInEndpoint(t, server) })
	t.Run("WrongPasswordIsScrubbed", func(t *testing.T) { testWrongPassword(t, server) })
	t.Run("ConfigRefusals", func(t *testing.T) { testConfigRefusals(t, server) })
	t.Run("UnrecognizedSchema", func(t *testing.T) { testUnrecognizedSchema(t, server) })
	t.Run("ConcurrentOpen", func(t *testing.T) { testConcurrentOpen(t, server) })
	t.Run("FenceProvesNoCommit", func(t *testing.T) { testFenceNoCommit(t, server) })
	t.Run("FenceProvesCommit", func(t *testing.T) { testFenceCommit(t, server) })
}

func openSchema(t *testing.T, server *testserver.Postgres, schema string) *Driver {
	t.Helper()
	d, err := Open(context.Background(), Config{URL: server.URL(), Password: server.Password, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func rawConn(t *testing.T, server *testserver.Postgres) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(server.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = server.Password
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func testCredentialInEndpoint(t *testing.T, server *testserver.Postgres) {
	for _, u := range []string{
		strings.Replace(server.URL(), "runx@", "runx:"+server.Password+"@", 1),
		server.URL() + "&password=" + server.Password,
	} {
		_, err := Open(context.Background(), Config{URL: u})
		if driver.CodeOf(err) != errcode.CredentialInEndpoint || strings.Contains(err.Error(), server.Password) {
			t.Fatalf("%v, want credential_in_endpoint without the secret", err)
		}
	}
}

func testWrongPassword(t *testing.T, server *testserver.Postgres) {
	wrong := "not-" + server.Password
	_, err := Open(context.Background(), Config{URL: server.URL(), Password: wrong})
	var e *driver.Error
	if !errors.As(err, &e) || e.Code != errcode.ProviderUnavailable {
		t.Fatalf("%v, want provider_unavailable", err)
	}
	b, _ := json.Marshal(driver.Failure(Provider, driver.OperationAppend, driver.StreamID{}, err))
	for _, text := range []string{err.Error(), string(b), errors.Unwrap(err).Error()} {
		if strings.Contains(text, wrong) || strings.Contains(text, server.Password) {
			t.Fatalf("a password leaked: %s", text)
		}
	}
}

func testConfigRefusals(t *testing.T, server *testserver.Postgres) {
	for _, cfg := range []Config{
		{URL: "mysql://x"},
		{URL: "postgres://"},
		{URL: server.URL(), Schema: "Bad-Name"},
		{URL: server.URL(), Schema: "pg_catalog"},
		{URL: server.URL(), Limits: driver.Limits{MaxEventBytes: driver.MaxEventBytesCeiling + 1}},
	} {
		if _, err := Open(context.Background(), cfg); driver.CodeOf(err) != errcode.InvalidConfig {
			t.Errorf("%+v: %v, want invalid_config", cfg.Schema, err)
		}
	}
}

func testUnrecognizedSchema(t *testing.T, server *testserver.Postgres) {
	conn := rawConn(t, server)
	ctx := context.Background()
	for _, sql := range []string{
		`CREATE SCHEMA foreign_a`, `CREATE TABLE foreign_a.runx_store_events (x int)`,
		`CREATE SCHEMA foreign_b`, `CREATE TABLE foreign_b.runx_store_meta (key text PRIMARY KEY, value text)`,
		`INSERT INTO foreign_b.runx_store_meta VALUES ('schema', 'runx.store.postgres.v9')`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	for _, schema := range []string{"foreign_a", "foreign_b"} {
		_, err := Open(ctx, Config{URL: server.URL(), Password: server.Password, Schema: schema})
		if driver.CodeOf(err) != errcode.StoreSchemaUnrecognized {
			t.Fatalf("%s: %v, want store_schema_unrecognized", schema, err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'foreign_a'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the refused schema was changed: %d tables %v", n, err)
	}
}

func testConcurrentOpen(t *testing.T, server *testserver.Postgres) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := Open(context.Background(), Config{URL: server.URL(), Password: server.Password, Schema: "shared"})
			if err == nil {
				d.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent open of one schema: %v", err)
		}
	}
}

// startBlockedAppend runs the append routine on a raw connection while the
// test holds the stream's head row lock, so the append is in flight.
func startBlockedAppend(t *testing.T, server *testserver.Postgres, d *Driver, p *driver.PreparedAppend) (pid uint32, done chan error) {
	t.Helper()
	conn := rawConn(t, server)
	if err := prepareStatements(d.cfg.Schema)(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	s := p.Stream
	done = make(chan error, 1)
	go func() {
		_, err := conn.Exec(context.Background(), stmtAppend, s.Source, s.Resource.Name, s.Key, p.ExpectedVersion,
			p.IdempotencyKey, p.EventType, p.EventDigest, string(p.Event), time.Now())
		done <- err
	}()
	return conn.PgConn().PID(), done
}

func prepared(t *testing.T, d *Driver, key, idem string, expected int64) *driver.PreparedAppend {
	t.Helper()
	p, err := driver.PrepareAppend(driver.AppendRequest{Stream: stream(key), ExpectedVersion: &expected, IdempotencyKey: idem,
		Event: []byte(`{"type":"t","payload":{"k":"` + idem + `"}}`)}, d.limits)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The fence ends an in-flight append that has not committed; the readback
// after it is proof of no commit, and the append never lands later.
func testFenceNoCommit(t *testing.T, server *testserver.Postgres) {
	d := openSchema(t, server, "fence_a")
	ctx := context.Background()
	if _, err := d.Append(ctx, driver.AppendRequest{Stream: stream("k"), IdempotencyKey: "first", Event: []byte(`{"type":"t"}`)}); err != nil {
		t.Fatal(err)
	}
	locker := rawConn(t, server)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM fence_a.runx_store_heads FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	p := prepared(t, d, "k", "second", 1)
	pid, done := startBlockedAppend(t, server, d, p)
	time.Sleep(200 * time.Millisecond) // let it block on the row lock
	_, err = d.prove(ctx, p, pid, errors.New("the answer was lost"))
	var e *driver.Error
	if !errors.As(err, &e) || e.Code != errcode.ProviderUnavailable || e.Evidence[driver.EvidenceCommitState] != driver.CommitNotCommitted {
		t.Fatalf("proof of an uncommitted append: %v %v", err, e)
	}
	if err := <-done; err == nil {
		t.Fatal("the fenced append went on to succeed")
	}
	tx.Rollback(ctx)
	h, err := d.InspectKey(ctx, driver.InspectRequest{Stream: stream("k")})
	if err != nil || h.Version != 1 {
		t.Fatalf("the fenced append landed: %+v %v", h, err)
	}
	r, err := d.Append(ctx, driver.AppendRequest{Stream: stream("k"), ExpectedVersion: p.ExpectedVersion, IdempotencyKey: "second", Event: p.Event})
	if err != nil || r.Replayed || r.AfterVersion != 2 {
		t.Fatalf("retry after a proven non-commit: %+v %v", r, err)
	}
}

// The fence after an append that did commit finds it: the lost answer is
// recovered as the committed result.
func testFenceCommit(t *testing.T, server *testserver.Postgres) {
	d := openSchema(t, server, "fence_b")
	p := prepared(t, d, "k", "only", 0)
	pid, done := startBlockedAppend(t, server, d, p)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, err := d.prove(context.Background(), p, pid, errors.New("the answer was lost"))
	if err != nil || r.AfterVersion != 1 || r.Replayed || r.EventDigest != p.EventDigest {
		t.Fatalf("proof of a committed append: %+v %v", r, err)
	}
}
