package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

func testAppendFirstEvent(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	r := appendOK(t, d, s, version(0), "claim-1", json.RawMessage(`{"type":"posting.claimed","payload":{"actor":"agent-9"}}`))
	if r.Provider != d.Provider() || r.Source != s.Source || r.Resource != s.Resource.Name || r.Key != s.Key {
		t.Fatalf("result names another stream: %+v", r)
	}
	if r.BeforeVersion != 0 || r.AfterVersion != 1 || r.Replayed {
		t.Fatalf("before %d after %d replayed %v", r.BeforeVersion, r.AfterVersion, r.Replayed)
	}
	if r.EventRef != "board_events:"+s.Key+":1" || r.EventType != "posting.claimed" || r.IdempotencyKey != "claim-1" {
		t.Fatalf("ref %s type %s key %s", r.EventRef, r.EventType, r.IdempotencyKey)
	}
	canonical := `{"payload":{"actor":"agent-9"},"type":"posting.claimed"}`
	if r.EventDigest != driver.Digest([]byte(canonical)) {
		t.Fatalf("event digest %s is not the digest of the canonical event", r.EventDigest)
	}
	want, _ := driver.NextProjection(driver.GenesisProjection, r.EventDigest)
	if r.ProjectionDigest != want || !driver.ValidDigest(r.ResultDigest) {
		t.Fatalf("projection %s want %s; result digest %s", r.ProjectionDigest, want, r.ResultDigest)
	}
	if r.CommittedAt.IsZero() || r.CommittedAt.Location().String() != "UTC" {
		t.Fatalf("committed_at %v", r.CommittedAt)
	}
	p := r.Packet()
	if p.Schema != driver.PacketSchema || p.Status != driver.StatusCommitted || p.Provider != d.Provider() || p.Redactions == nil {
		t.Fatalf("packet %+v", p)
	}
	events := readAll(t, d, s)
	if len(events) != 1 || string(events[0].Data) != canonical || !events[0].CommittedAt.Equal(r.CommittedAt) {
		t.Fatalf("read back %+v", events)
	}
}

func testAppendChainsVersions(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	rs := appendN(t, d, s, "k", 5)
	for i, r := range rs {
		if r.BeforeVersion != int64(i) || r.AfterVersion != int64(i+1) {
			t.Fatalf("append %d: before %d after %d", i, r.BeforeVersion, r.AfterVersion)
		}
	}
	events := readAll(t, d, s)
	checkHistory(t, d, s, events)
	if events[4].ProjectionDigest != rs[4].ProjectionDigest {
		t.Fatal("the append result's projection is not the stored one")
	}
}

func testAppendDerivesEventType(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	cases := []struct{ event, want string }{
		{`{"type":"posting.claimed"}`, "posting.claimed"},
		{`{"effect_family":"operator_inbox","operation":"disposition","payload":{}}`, "operator_inbox.disposition"},
		{`{"payload":{"event":"x"}}`, driver.DefaultEventType},
	}
	for i, c := range cases {
		r := appendOK(t, d, s, version(int64(i)), "type-"+c.want, json.RawMessage(c.event))
		if r.EventType != c.want {
			t.Fatalf("%s: event type %s, want %s", c.event, r.EventType, c.want)
		}
	}
	for i, e := range readAll(t, d, s) {
		if e.Type != cases[i].want {
			t.Fatalf("read back type %s, want %s", e.Type, cases[i].want)
		}
	}
	_, err := d.Append(ctxFor(t), driver.AppendRequest{Stream: s, IdempotencyKey: "bad-type", Event: json.RawMessage(`{"type":"has space"}`)})
	requireCode(t, err, errcode.InvalidEvent)
}

func testAppendStaleVersionRefused(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	appendN(t, d, s, "k", 3)
	for _, expected := range []int64{0, 2, 4, 100} {
		_, err := d.Append(ctxFor(t), driver.AppendRequest{Stream: s, ExpectedVersion: version(expected), IdempotencyKey: "late", Event: ev("late", 0)})
		e := requireCode(t, err, errcode.VersionConflict)
		if e.CurrentVersion == nil || *e.CurrentVersion != 3 {
			t.Fatalf("expected %d: the conflict names version %v, want 3", expected, e.CurrentVersion)
		}
	}
	if h := head(t, d, s); h.Version != 3 {
		t.Fatalf("a refused append moved the stream to %d", h.Version)
	}
	// The refused key was not consumed: the same key commits at the right version.
	r := appendOK(t, d, s, version(3), "late", ev("late", 0))
	if r.AfterVersion != 4 || r.Replayed {
		t.Fatalf("after a conflict the key commits fresh: %+v", r)
	}
}

func testAppendWithoutExpectedVersion(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	for i := range 3 {
		r := appendOK(t, d, s, nil, "free-"+string(rune('a'+i)), ev("free", i))
		if r.BeforeVersion != int64(i) || r.AfterVersion != int64(i+1) {
			t.Fatalf("before %d after %d", r.BeforeVersion, r.AfterVersion)
		}
	}
	checkHistory(t, d, s, readAll(t, d, s))
}

func testIdempotentReplay(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	first := appendOK(t, d, s, version(0), "once", json.RawMessage(`{"type":"t","payload":{"a":1,"b":[1,2]}}`))
	appendOK(t, d, s, version(1), "other", ev("other", 1))
	// The retry carries the version it was made against (stale now), and the
	// same event in another key order and spacing.
	again, err := d.Append(ctxFor(t), driver.AppendRequest{Stream: s, ExpectedVersion: version(0), IdempotencyKey: "once",
		Event: json.RawMessage(` { "payload" : { "b":[1,2.0], "a":1 }, "type":"t" } `)})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if !again.Replayed {
		t.Fatal("a replay is not marked replayed")
	}
	first.Replayed = false
	again.Replayed = false
	if !reflect.DeepEqual(first.Packet(), again.Packet()) || !first.CommittedAt.Equal(again.CommittedAt) {
		t.Fatalf("a replay is not the committed result:\nfirst %+v\nagain %+v", first, again)
	}
	// Without an expected version too.
	if r := appendOK(t, d, s, nil, "once", json.RawMessage(`{"type":"t","payload":{"a":1,"b":[1,2]}}`)); !r.Replayed || r.AfterVersion != 1 {
		t.Fatalf("replay without expected version: %+v", r)
	}
	if n := len(readAll(t, d, s)); n != 2 {
		t.Fatalf("replays appended: %d events", n)
	}
}

func testIdempotencyConflict(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	appendOK(t, d, s, version(0), "key", ev("t", 1))
	_, err := d.Append(ctxFor(t), driver.AppendRequest{Stream: s, ExpectedVersion: version(1), IdempotencyKey: "key", Event: ev("t", 2)})
	e := requireCode(t, err, errcode.IdempotencyConflict)
	if e.CurrentVersion == nil || *e.CurrentVersion != 1 {
		t.Fatalf("conflict names version %v", e.CurrentVersion)
	}
	if n := len(readAll(t, d, s)); n != 1 {
		t.Fatalf("a conflicting key appended: %d events", n)
	}
	// Keys are per stream: the same key on another stream is independent.
	other := s
	other.Key = s.Key + "-other"
	if r := appendOK(t, d, other, version(0), "key", ev("t", 2)); r.Replayed || r.AfterVersion != 1 {
		t.Fatalf("a key on another stream: %+v", r)
	}
}

func testStreamsAreIsolated(t *testing.T, d driver.Driver) {
	base := freshStream(t)
	otherKey, otherResource, otherSource := base, base, base
	otherKey.Key += "-b"
	otherResource.Resource.Name = "other_events"
	otherSource.Source += "-b"
	for i, s := range []driver.Stream{base, otherKey, otherResource, otherSource} {
		appendN(t, d, s, "same-key", i+1)
	}
	for i, s := range []driver.Stream{base, otherKey, otherResource, otherSource} {
		events := readAll(t, d, s)
		if len(events) != i+1 {
			t.Fatalf("stream %d holds %d events, want %d", i, len(events), i+1)
		}
		checkHistory(t, d, s, events)
	}
}
