package bench

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	goredis "github.com/redis/go-redis/v9"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/plugins/store/driver/postgres"
	"github.com/runxhq/runx/plugins/store/driver/redis"
	"github.com/runxhq/runx/plugins/store/driver/sqlite"
	"github.com/runxhq/runx/sdk/store/driver"
)

// BenchmarkStore measures the store drivers beside the same work done with
// the raw client (docs/PERFORMANCE.md, issue 6): appends to one stream and across
// 1,000 streams, and a paged read of 100,000 events in pages of 500. Each
// driver operation is interleaved with its raw counterpart, so that both see
// the same machine load, and the ratio of their mean times is reported as
// overhead_x (targets: under 1.5 for appends, under 1.2 for reads).
//
// The raw client does the same storage work on the same data, and nothing
// else: it stores the row the driver stores (digests included, computed
// outside its timing) with a plain INSERT into the driver's own table
// (SQLite, PostgreSQL) or an RPUSH of the same element (Redis), and reads
// the same stream with a plain paged SELECT of the same columns or an
// LRANGE of the same list. overhead_x is therefore what the driver adds:
// validation, canonical JSON and digests, the transaction with its
// idempotency and version checks, the head, the page checks.
func BenchmarkStore(b *testing.B) {
	targets := []*storeTarget{
		{name: "sqlite", start: startSQLite(sqlite.SynchronousFull)},
		{name: "sqlite_sync_normal", start: startSQLite(sqlite.SynchronousNormal)},
		{name: "postgres", start: startPostgres},
		{name: "redis", start: startRedis},
	}
	parent := b
	for _, tg := range targets {
		b.Run("append/"+tg.name+"/one_stream", func(b *testing.B) { benchAppend(b, tg.get(b, parent), 1) })
		b.Run("append/"+tg.name+"/1000_streams", func(b *testing.B) { benchAppend(b, tg.get(b, parent), 1000) })
		if tg.name != "sqlite" { // reads do not depend on commit durability
			b.Run("read_100k/"+tg.name, func(b *testing.B) { benchRead(b, tg.get(b, parent)) })
		}
	}
}

// outliving keeps a fixture alive across a sub-benchmark's runs (the
// framework runs each with growing b.N): failures go to the sub-benchmark,
// cleanups and temporary directories to the parent.
type outliving struct {
	testing.TB
	parent *testing.B
}

func (o outliving) Cleanup(f func()) { o.parent.Cleanup(f) }

func (o outliving) TempDir() string {
	dir, err := os.MkdirTemp("", "runx-bench-store-")
	if err != nil {
		o.Fatal(err)
	}
	o.parent.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// rawStore is the raw client doing the same storage work.
type rawStore interface {
	append(ctx context.Context, row rawRow) error
	readPage(ctx context.Context, s driver.Stream, after int64, limit int) (int, error)
}

// rawRow is everything the driver stores for one event, precomputed.
type rawRow struct {
	stream     driver.Stream
	version    int64
	p          *driver.PreparedAppend
	projection string
	at         time.Time
}

// rawRowFor derives the row the driver would store, outside any timing.
func rawRowFor(b *testing.B, s driver.Stream, version int64, prev, key string, event []byte) rawRow {
	limits, _ := driver.Limits{}.Normalize()
	p, err := driver.PrepareAppend(driver.AppendRequest{Stream: s, IdempotencyKey: key, Event: event}, limits)
	if err != nil {
		b.Fatal(err)
	}
	projection, err := driver.NextProjection(prev, p.EventDigest)
	if err != nil {
		b.Fatal(err)
	}
	return rawRow{stream: s, version: version, p: p, projection: projection, at: driver.CommitTime(time.Now())}
}

type storeFixture struct {
	d    driver.Driver
	raw  rawStore
	seq  int // makes every benchmark run's streams fresh
	read *readFixture
}

// storeTarget starts its server once, in the parent benchmark, the first
// time one of its sub-benchmarks runs.
type storeTarget struct {
	name  string
	start func(tb testing.TB) *storeFixture
	once  sync.Once
	f     *storeFixture
}

func (t *storeTarget) get(b, parent *testing.B) *storeFixture {
	t.once.Do(func() { t.f = t.start(outliving{TB: b, parent: parent}) })
	if t.f == nil {
		b.Skip("the fixture did not start")
	}
	return t.f
}

var benchResource = driver.Resource{Name: "bench_events", Kind: driver.KindEventStream}

func benchEvent(i int) []byte {
	return []byte(fmt.Sprintf(`{"type":"bench.appended","payload":{"i":%d,"title":"a card title of ordinary length","tags":["triage","board"],"actor":"agent-9"}}`, i))
}

func benchAppend(b *testing.B, f *storeFixture, streams int) {
	ctx := context.Background()
	f.seq++
	versions := make([]int64, streams)
	rawHeads := make([]string, streams)
	dlat := make(latencies, 0, b.N)
	rlat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		n := i % streams
		s := driver.Stream{Source: "tenant://bench", Resource: benchResource, Key: fmt.Sprintf("run%d-s%d", f.seq, n)}
		event := benchEvent(i)
		start := time.Now()
		r, err := f.d.Append(ctx, driver.AppendRequest{Stream: s, ExpectedVersion: &versions[n], IdempotencyKey: fmt.Sprintf("k%d", i), Event: event})
		dlat = append(dlat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		versions[n] = r.AfterVersion
		if rawHeads[n] == "" {
			rawHeads[n] = driver.GenesisProjection
		}
		rs := s
		rs.Source = "tenant://bench-raw"
		row := rawRowFor(b, rs, r.AfterVersion, rawHeads[n], fmt.Sprintf("k%d", i), event)
		rawHeads[n] = row.projection
		start = time.Now()
		if err := f.raw.append(ctx, row); err != nil {
			b.Fatal(err)
		}
		rlat = append(rlat, time.Since(start))
	}
	b.StopTimer()
	reportPair(b, dlat, rlat, "appends/s", time.Microsecond, "µs")
}

type readFixture struct {
	stream driver.Stream
}

const readEvents = 100_000

func benchRead(b *testing.B, f *storeFixture) {
	ctx := context.Background()
	if f.read == nil {
		b.StopTimer()
		f.read = seedRead(b, f)
		b.StartTimer()
	}
	var dlat, rlat latencies
	var dtotal, rtotal time.Duration
	b.ResetTimer()
	for range b.N {
		after := int64(0)
		got := 0
		for {
			start := time.Now()
			page, err := f.d.Read(ctx, driver.ReadRequest{Stream: f.read.stream, AfterVersion: &after, Limit: driver.MaxPageEvents})
			el := time.Since(start)
			dlat, dtotal = append(dlat, el), dtotal+el
			if err != nil {
				b.Fatal(err)
			}
			got += len(page.Events)
			start = time.Now()
			if _, err := f.raw.readPage(ctx, f.read.stream, after, driver.MaxPageEvents); err != nil {
				b.Fatal(err)
			}
			el = time.Since(start)
			rlat, rtotal = append(rlat, el), rtotal+el
			if !page.HasMore {
				break
			}
			after = page.NextAfterVersion
		}
		if got != readEvents {
			b.Fatalf("read %d events, want %d", got, readEvents)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(readEvents*b.N)/dtotal.Seconds(), "events/s")
	b.ReportMetric(float64(readEvents*b.N)/rtotal.Seconds(), "raw_events/s")
	dlat.report(b, time.Millisecond, "page_ms")
	rlat.report(b, time.Millisecond, "raw_page_ms")
	b.ReportMetric(float64(dtotal)/float64(rtotal), "overhead_x")
}

// seedRead appends 100,000 events through the driver (four writers, as
// appends to one stream serialize anyway); the raw client reads them back.
func seedRead(b testing.TB, f *storeFixture) *readFixture {
	ctx := context.Background()
	rf := &readFixture{stream: driver.Stream{Source: "tenant://bench", Resource: benchResource, Key: "read-100k"}}
	const writers = 4
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < readEvents; i += writers {
				if _, err := f.d.Append(ctx, driver.AppendRequest{Stream: rf.stream, IdempotencyKey: fmt.Sprintf("r%d", i), Event: benchEvent(i)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return rf
}

func reportPair(b *testing.B, d, r latencies, rateUnit string, unit time.Duration, suffix string) {
	var dsum, rsum time.Duration
	for i := range d {
		dsum += d[i]
		rsum += r[i]
	}
	b.ReportMetric(float64(len(d))/dsum.Seconds(), rateUnit)
	b.ReportMetric(float64(len(r))/rsum.Seconds(), "raw_"+rateUnit)
	d.report(b, unit, suffix)
	r.report(b, unit, "raw_"+suffix)
	b.ReportMetric(float64(dsum)/float64(rsum), "overhead_x")
}

func startSQLite(sync sqlite.Synchronous) func(b testing.TB) *storeFixture {
	return func(b testing.TB) *storeFixture {
		dir := b.TempDir()
		d, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(dir, "store.sqlite"), Synchronous: sync})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { d.Close() })
		// The raw client works on the driver's own file and table, with the
		// same connection settings.
		db, err := sql.Open("sqlite", fmt.Sprintf("%s?_busy_timeout=5000&_journal_mode=WAL&_synchronous=%s", filepath.Join(dir, "store.sqlite"), sync))
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		b.Cleanup(func() { db.Close() })
		return &storeFixture{d: d, raw: &rawSQL{db: db}}
	}
}

func startPostgres(b testing.TB) *storeFixture {
	server := testserver.StartPostgres(b)
	ctx := context.Background()
	d, err := postgres.Open(ctx, postgres.Config{URL: server.URL(), Password: server.Password})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	cfg, err := pgx.ParseConfig(server.URL())
	if err != nil {
		b.Fatal(err)
	}
	cfg.Password = server.Password
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(ctx) })
	return &storeFixture{d: d, raw: &rawPG{conn: conn}}
}

func startRedis(b testing.TB) *storeFixture {
	server := testserver.StartRedis(b)
	d, err := redis.Open(context.Background(), redis.Config{Endpoint: server.Endpoint(), Password: server.Password, KeyPrefix: "runx:bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	c := goredis.NewClient(&goredis.Options{Addr: server.Addr, Password: server.Password})
	b.Cleanup(func() { c.Close() })
	return &storeFixture{d: d, raw: &rawRedis{c: c, prefix: "runx:bench"}}
}

// The raw clients of BenchmarkStore: the storage work alone, on the driver's
// own tables and keys (SCHEMA.md in plugins/store/driver describes them).

const (
	rawInsert = `INSERT INTO runx_store_events (data_source_ref, resource, aggregate_id, version, idempotency_key,
  event_type, event_digest, projection_digest, committed_at, event_json) VALUES `
	rawPage = `SELECT version, idempotency_key, event_type, event_digest, projection_digest, committed_at, event_json
FROM runx_store_events WHERE data_source_ref = $1 AND resource = $2 AND aggregate_id = $3 AND version > $4
ORDER BY version LIMIT $5`
)

type rawSQL struct {
	db *sql.DB
}

func (r *rawSQL) append(ctx context.Context, w rawRow) error {
	_, err := r.db.ExecContext(ctx, rawInsert+`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, w.stream.Source, w.stream.Resource.Name, w.stream.Key,
		w.version, w.p.IdempotencyKey, w.p.EventType, w.p.EventDigest, w.projection, w.at.UnixMilli(), string(w.p.Event))
	return err
}

func (r *rawSQL) readPage(ctx context.Context, s driver.Stream, after int64, limit int) (int, error) {
	rows, err := r.db.QueryContext(ctx, strings.ReplaceAll(rawPage, "$", "?"), s.Source, s.Resource.Name, s.Key, after, limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var v, at int64
		var key, typ, digest, projection string
		var data []byte
		if err := rows.Scan(&v, &key, &typ, &digest, &projection, &at, &data); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

type rawPG struct {
	conn *pgx.Conn
}

func (r *rawPG) append(ctx context.Context, w rawRow) error {
	_, err := r.conn.Exec(ctx, `INSERT INTO runx_store.`+rawInsert[len("INSERT INTO "):]+`($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		w.stream.Source, w.stream.Resource.Name, w.stream.Key, w.version, w.p.IdempotencyKey, w.p.EventType, w.p.EventDigest,
		w.projection, w.at, string(w.p.Event))
	return err
}

func (r *rawPG) readPage(ctx context.Context, s driver.Stream, after int64, limit int) (int, error) {
	rows, err := r.conn.Query(ctx, strings.Replace(rawPage, "FROM runx_store_events", "FROM runx_store.runx_store_events", 1),
		s.Source, s.Resource.Name, s.Key, after, limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var v int64
		var key, typ, digest, projection string
		var at time.Time
		var data []byte
		if err := rows.Scan(&v, &key, &typ, &digest, &projection, &at, &data); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

type rawRedis struct {
	c      *goredis.Client
	prefix string
}

// eventsKey is the driver's list for a stream (SCHEMA.md, Redis).
func (r *rawRedis) eventsKey(s driver.Stream) string {
	digest := func(parts ...string) string {
		b, _ := json.Marshal(parts)
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:16])
	}
	return r.prefix + ":{r" + digest(s.Source, s.Resource.Name) + "}:events:" + digest(s.Source, s.Resource.Name, s.Key)
}

func (r *rawRedis) append(ctx context.Context, w rawRow) error {
	element := strings.Join([]string{"1", strconv.FormatInt(w.version, 10), strconv.FormatInt(w.at.UnixMilli(), 10),
		w.p.EventType, w.p.EventDigest, w.projection, w.p.IdempotencyKey, string(w.p.Event)}, "\x1f")
	return r.c.RPush(ctx, r.prefix+"-raw:"+w.stream.Key, element).Err()
}

func (r *rawRedis) readPage(ctx context.Context, s driver.Stream, after int64, limit int) (int, error) {
	elems, err := r.c.LRange(ctx, r.eventsKey(s), after, after+int64(limit)-1).Result()
	return len(elems), err
}
