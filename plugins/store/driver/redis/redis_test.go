package redis

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

var board = driver.Resource{Name: "board_events", Kind: driver.KindEventStream}

func stream(key string) driver.Stream {
	return driver.Stream{Source: "tenant://acme/board", Resource: board, Key: key}
}

// One server for the package's tests; each test uses its own key prefix.
func TestDriver(t *testing.T) {
	server := testserver.StartRedis(t)
	t.Run("CredentialInEndpoint", func(t *testing.T) { testCredentialInEndpoint(t, server) })
	t.Run("WrongPasswordIsScrubbed", func(t *testing.T) { testWrongPassword(t, server) })
	t.Run("ConfigRefusals", func(t *testing.T) { testConfigRefusals(t, server) })
	t.Run("KeyLayout", func(t *testing.T) { testKeyLayout(t, server) })
	t.Run("PausedServerFailsClosed", func(t *testing.T) { testPausedServer(t, server) })
	t.Run("ForeignDataIsCorruptNotWritten", func(t *testing.T) { testForeignData(t, server) })
}

func openPrefix(t *testing.T, server *testserver.Redis, prefix string, commitTimeout time.Duration) *Driver {
	t.Helper()
	d, err := Open(context.Background(), Config{Endpoint: server.Endpoint(), Password: server.Password, KeyPrefix: prefix, CommitTimeout: commitTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func raw(t *testing.T, server *testserver.Redis) *goredis.Client {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: server.Addr, Password: server.Password})
	t.Cleanup(func() { c.Close() })
	return c
}

func testCredentialInEndpoint(t *testing.T, server *testserver.Redis) {
	for _, u := range []string{
		"redis://:" + server.Password + "@" + server.Addr + "/0",
		"redis://default:" + server.Password + "@" + server.Addr + "/0",
		server.Endpoint() + "?password=" + server.Password,
	} {
		_, err := Open(context.Background(), Config{Endpoint: u})
		if driver.CodeOf(err) != errcode.CredentialInEndpoint || strings.Contains(err.Error(), server.Password) {
			t.Fatalf("%v, want credential_in_endpoint without the secret", err)
		}
	}
}

func testWrongPassword(t *testing.T, server *testserver.Redis) {
	wrong := "not-" + server.Password
	_, err := Open(context.Background(), Config{Endpoint: server.Endpoint(), Password: wrong})
	if driver.CodeOf(err) != errcode.ProviderUnavailable {
		t.Fatalf("%v, want provider_unavailable", err)
	}
	b, _ := json.Marshal(driver.Failure(Provider, driver.OperationAppend, driver.StreamID{}, err))
	for _, text := range []string{err.Error(), string(b), errors.Unwrap(err).Error()} {
		if strings.Contains(text, wrong) || strings.Contains(text, server.Password) {
			t.Fatalf("a password leaked: %s", text)
		}
	}
}

func testConfigRefusals(t *testing.T, server *testserver.Redis) {
	for _, cfg := range []Config{
		{Endpoint: "http://x"},
		{Endpoint: "redis://"},
		{Endpoint: server.Endpoint(), KeyPrefix: "has space"},
		{Endpoint: server.Endpoint(), KeyPrefix: "{a}{b}"},
		{Endpoint: server.Endpoint(), KeyPrefix: ":leading"},
		{Endpoint: server.Endpoint(), Limits: driver.Limits{MaxPageEvents: 501}},
	} {
		if _, err := Open(context.Background(), cfg); driver.CodeOf(err) != errcode.InvalidConfig {
			t.Errorf("%+v: %v, want invalid_config", cfg.KeyPrefix, err)
		}
	}
}

// Every key the store writes is under the prefix, in the resource's hash
// slot, and of the documented type.
func testKeyLayout(t *testing.T, server *testserver.Redis) {
	d := openPrefix(t, server, "runx:layout", 0)
	ctx := context.Background()
	for _, key := range []string{"b", "a"} {
		if _, err := d.Append(ctx, driver.AppendRequest{Stream: stream(key), IdempotencyKey: "k", Event: []byte(`{"type":"t"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	c := raw(t, server)
	keys, err := c.Keys(ctx, "runx:layout*").Result()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	tag := resourceTag("runx:layout", "tenant://acme/board", "board_events")
	types := map[string]int{}
	for _, k := range keys {
		if !strings.HasPrefix(k, tag) {
			t.Fatalf("key %s is outside the resource's tag %s", k, tag)
		}
		typ, _ := c.Type(ctx, k).Result()
		types[typ]++
	}
	if len(keys) != 6 || types["list"] != 2 || types["hash"] != 3 || types["zset"] != 1 {
		t.Fatalf("keys %v types %v; want 2 lists, 2 idempotency hashes + 1 heads hash, 1 keys index", keys, types)
	}
}

// A server that stops executing writes while an append is in flight: the
// append fails closed as ambiguous_commit, never committed; a retry with the
// same key settles it exactly once.
func testPausedServer(t *testing.T, server *testserver.Redis) {
	d := openPrefix(t, server, "runx:paused", 300*time.Millisecond)
	ctx := context.Background()
	c := raw(t, server)
	if err := c.Do(ctx, "CLIENT", "PAUSE", "1000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	req := driver.AppendRequest{Stream: stream("k"), IdempotencyKey: "paused", Event: []byte(`{"type":"t"}`)}
	_, err := d.Append(ctx, req)
	var e *driver.Error
	if !errors.As(err, &e) || e.Code != errcode.AmbiguousCommit || e.Evidence[driver.EvidenceCommitState] != driver.CommitUnknown {
		t.Fatalf("append during a pause: %v", err)
	}
	time.Sleep(1100 * time.Millisecond)
	var r driver.AppendResult
	for range 20 {
		if r, err = d.Append(ctx, req); driver.CodeOf(err) != errcode.AmbiguousCommit {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || r.AfterVersion != 1 {
		t.Fatalf("retry after the pause: %+v %v", r, err)
	}
	page, err := d.Read(ctx, driver.ReadRequest{Stream: stream("k"), Limit: 10})
	if err != nil || len(page.Events) != 1 {
		t.Fatalf("after the retry the stream holds %d events: %v", len(page.Events), err)
	}
}

// Keys of the wrong type under the prefix are refused before anything is
// written, and a malformed element is reported, never passed on.
func testForeignData(t *testing.T, server *testserver.Redis) {
	d := openPrefix(t, server, "runx:foreign", 0)
	ctx := context.Background()
	c := raw(t, server)
	k := keysFor("runx:foreign", stream("k"))
	if err := c.Set(ctx, k.events, "not a list", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := d.Append(ctx, driver.AppendRequest{Stream: stream("k"), IdempotencyKey: "x", Event: []byte(`{"type":"t"}`)})
	if driver.CodeOf(err) != errcode.StoreCorrupt {
		t.Fatalf("append over a foreign key: %v, want store_corrupt", err)
	}
	if n, _ := c.HLen(ctx, k.idem).Result(); n != 0 {
		t.Fatal("the refused append wrote its idempotency key")
	}
	k2 := keysFor("runx:foreign", stream("k2"))
	if _, err := d.Append(ctx, driver.AppendRequest{Stream: stream("k2"), IdempotencyKey: "x", Event: []byte(`{"type":"t"}`)}); err != nil {
		t.Fatal(err)
	}
	c.LSet(ctx, k2.events, 0, "garbage")
	if _, err := d.Read(ctx, driver.ReadRequest{Stream: stream("k2")}); driver.CodeOf(err) != errcode.StoreCorrupt {
		t.Fatalf("read of a malformed element: %v, want store_corrupt", err)
	}
}
