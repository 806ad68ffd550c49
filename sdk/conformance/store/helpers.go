package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/store/driver"
)

// Opener opens a driver over an empty store with default limits, registering
// its own cleanup with t.Cleanup. The suite may also Close it; Close must be
// idempotent.
type Opener func(t testing.TB) driver.Driver

// testTimeout bounds one suite operation, so a hung provider fails the test
// instead of the whole run.
const testTimeout = 30 * time.Second

func ctxFor(t testing.TB) context.Context {
	return ctxWithin(t, testTimeout)
}

// heavyTimeout bounds a whole heavy case (thousands of operations).
const heavyTimeout = 5 * time.Minute

func ctxWithin(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Board is the resource the suite writes to.
func Board() driver.Resource {
	return driver.Resource{Name: "board_events", Kind: driver.KindEventStream, PartitionKey: "aggregate_id"}
}

var streamSeq atomic.Int64

// freshStream is a stream no other test touches, so tests are independent
// even when a driver author's Opener shares one store.
func freshStream(t testing.TB) driver.Stream {
	n := streamSeq.Add(1)
	return driver.Stream{
		Source:   fmt.Sprintf("tenant://conformance/%s/%d", sanitize(t.Name()), n),
		Resource: Board(),
		Key:      fmt.Sprintf("posting-%d", n),
	}
}

func sanitize(name string) string {
	out := []byte(name)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			out[i] = '-'
		}
	}
	return string(out)
}

func ev(typ string, n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":%q,"payload":{"n":%d}}`, typ, n))
}

func version(v int64) *int64 { return &v }

func appendOK(t testing.TB, d driver.Driver, s driver.Stream, expected *int64, key string, event json.RawMessage) driver.AppendResult {
	t.Helper()
	r, err := d.Append(ctxFor(t), driver.AppendRequest{Stream: s, ExpectedVersion: expected, IdempotencyKey: key, Event: event})
	if err != nil {
		t.Fatalf("append %s: %s", key, describe(err))
	}
	return r
}

// describe prints an error with its evidence, which names the provider's
// own error for a driver author to act on.
func describe(err error) string {
	var e *driver.Error
	if errors.As(err, &e) && len(e.Evidence) > 0 {
		return fmt.Sprintf("%v %v", err, e.Evidence)
	}
	return fmt.Sprint(err)
}

// appendN appends n events with keys "<prefix>-<i>" and expected versions.
func appendN(t testing.TB, d driver.Driver, s driver.Stream, prefix string, n int) []driver.AppendResult {
	t.Helper()
	out := make([]driver.AppendResult, n)
	for i := range n {
		out[i] = appendOK(t, d, s, version(int64(i)), fmt.Sprintf("%s-%d", prefix, i), ev("conformance.appended", i))
	}
	return out
}

// requireCode fails unless err is a typed store error with the code.
func requireCode(t testing.TB, err error, code driver.Code) *driver.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	var e *driver.Error
	if !errors.As(err, &e) {
		t.Fatalf("got an untyped error %v, want %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("got %s (%s), want %s", e.Code, e.Message, code)
	}
	if !errors.Is(err, &driver.Error{Code: code}) {
		t.Fatalf("errors.Is does not match code %s", code)
	}
	return e
}

func readAll(t testing.TB, d driver.Driver, s driver.Stream) []driver.Event {
	t.Helper()
	var all []driver.Event
	after := int64(0)
	for {
		page, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, AfterVersion: version(after), Limit: driver.MaxPageEvents})
		if err != nil {
			t.Fatalf("read after %d: %s", after, describe(err))
		}
		all = append(all, page.Events...)
		if !page.HasMore {
			return all
		}
		if page.NextAfterVersion <= after {
			t.Fatalf("next_after_version %d does not advance past %d", page.NextAfterVersion, after)
		}
		after = page.NextAfterVersion
	}
}

func head(t testing.TB, d driver.Driver, s driver.Stream) driver.Head {
	t.Helper()
	h, err := d.InspectKey(ctxFor(t), driver.InspectRequest{Stream: s})
	if err != nil {
		t.Fatalf("inspect: %s", describe(err))
	}
	return h
}

// checkHistory proves a stream's integrity from its events alone: versions
// gapless from 1, each event's digest its body's, each projection digest the
// fold of the digests before it, and the head's projection the last one.
func checkHistory(t testing.TB, d driver.Driver, s driver.Stream, events []driver.Event) {
	t.Helper()
	p := driver.GenesisProjection
	for i, e := range events {
		if e.Version != int64(i+1) {
			t.Fatalf("version %d at position %d: versions are not gapless", e.Version, i)
		}
		if e.Digest != driver.Digest(e.Data) {
			t.Fatalf("event %d: digest %s is not its body's", e.Version, e.Digest)
		}
		next, err := driver.NextProjection(p, e.Digest)
		if err != nil {
			t.Fatal(err)
		}
		if e.ProjectionDigest != next {
			t.Fatalf("event %d: projection digest %s, recomputed %s", e.Version, e.ProjectionDigest, next)
		}
		if e.Ref != driver.EventRef(s.Resource.Name, s.Key, e.Version) {
			t.Fatalf("event ref %s", e.Ref)
		}
		p = next
	}
	h := head(t, d, s)
	if h.Version != int64(len(events)) || h.ProjectionDigest != p {
		t.Fatalf("head at %d %s; recomputed %d %s", h.Version, h.ProjectionDigest, len(events), p)
	}
}
