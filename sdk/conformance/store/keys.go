package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

func testInspectKey(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	h := head(t, d, s)
	if h.Version != 0 || h.ProjectionDigest != driver.GenesisProjection || h.LastEventRef != "" || !h.CommittedAt.IsZero() {
		t.Fatalf("a stream with no events: %+v", h)
	}
	if p := h.Packet(); p.Projection.LastEventRef != nil || p.BeforeVersion != 0 {
		t.Fatalf("empty projection packet %+v", p)
	}
	rs := appendN(t, d, s, "k", 3)
	h = head(t, d, s)
	last := rs[2]
	if h.Version != 3 || h.LastEventRef != last.EventRef || h.LastEventType != last.EventType ||
		h.LastEventDigest != last.EventDigest || h.ProjectionDigest != last.ProjectionDigest || !h.CommittedAt.Equal(last.CommittedAt) {
		t.Fatalf("head %+v after %+v", h, last)
	}
	if h.Source != s.Source || h.Resource != s.Resource.Name || h.Key != s.Key || h.Provider != d.Provider() {
		t.Fatalf("head names another stream: %+v", h)
	}
}

func testListKeys(t *testing.T, d driver.Driver) {
	base := freshStream(t)
	// Keys inserted out of order; listed in byte order. "B" < "a" in bytes.
	keys := []string{"k-5", "k-1", "a:sha256:x", "k-10", "B-upper", "k-3", "k-2"}
	want := []string{"B-upper", "a:sha256:x", "k-1", "k-10", "k-2", "k-3", "k-5"}
	for i, k := range keys {
		s := base
		s.Key = k
		appendN(t, d, s, "k", i%3+1)
	}
	other := base
	other.Resource.Name = "other_events"
	other.Key = "k-0-other-resource"
	appendN(t, d, other, "k", 1)

	var got []string
	cursor := ""
	for pages := 1; ; pages++ {
		res, err := d.ListKeys(ctxFor(t), driver.ListRequest{Source: base.Source, Resource: base.Resource, Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Heads {
			got = append(got, h.Key)
			s := base
			s.Key = h.Key
			if full := head(t, d, s); full.Version != h.Version || full.ProjectionDigest != h.ProjectionDigest ||
				full.LastEventRef != h.LastEventRef || full.LastEventDigest != h.LastEventDigest || !full.CommittedAt.Equal(h.CommittedAt) {
				t.Fatalf("listed head %+v differs from inspected %+v", h, full)
			}
		}
		if !res.HasMore {
			if res.NextCursor != "" || pages != 3 {
				t.Fatalf("last page: cursor %q after %d pages", res.NextCursor, pages)
			}
			break
		}
		if res.NextCursor == "" || len(res.Heads) != 3 {
			t.Fatalf("a page with more has %d heads and cursor %q", len(res.Heads), res.NextCursor)
		}
		cursor = res.NextCursor
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	empty, err := d.ListKeys(ctxFor(t), driver.ListRequest{Source: base.Source + "-none", Resource: base.Resource})
	if err != nil || len(empty.Heads) != 0 || empty.HasMore || empty.Limit != driver.DefaultPageEvents {
		t.Fatalf("an empty listing %+v %v", empty, err)
	}
}

func testListKeysRefusals(t *testing.T, d driver.Driver) {
	base := freshStream(t)
	for _, k := range []string{"a", "b", "c"} {
		s := base
		s.Key = k
		appendN(t, d, s, "k", 1)
	}
	first, err := d.ListKeys(ctxFor(t), driver.ListRequest{Source: base.Source, Resource: base.Resource, Limit: 1})
	if err != nil || !first.HasMore {
		t.Fatalf("%+v %v", first, err)
	}
	list := func(r driver.ListRequest) error {
		_, err := d.ListKeys(ctxFor(t), r)
		return err
	}
	other := base.Resource
	other.Name = "other_events"
	requireCode(t, list(driver.ListRequest{Source: base.Source, Resource: other, Cursor: first.NextCursor}), errcode.CursorInvalid)
	requireCode(t, list(driver.ListRequest{Source: base.Source + "x", Resource: base.Resource, Cursor: first.NextCursor}), errcode.CursorInvalid)
	requireCode(t, list(driver.ListRequest{Source: base.Source, Resource: base.Resource, Cursor: "offset=1"}), errcode.CursorInvalid)
	requireCode(t, list(driver.ListRequest{Source: base.Source, Resource: base.Resource, Limit: driver.MaxPageEvents + 1}), errcode.PageLimitExceeded)
	requireCode(t, list(driver.ListRequest{Source: base.Source, Resource: driver.Resource{Name: base.Resource.Name}}), errcode.SchemaRequired)
	requireCode(t, list(driver.ListRequest{Source: base.Source}), errcode.InvalidRequest)
	requireCode(t, list(driver.ListRequest{Resource: base.Resource}), errcode.InvalidRequest)
}

// testCanceledContext: a call whose context is done fails with a typed error
// (never an empty result) and writes nothing.
func testCanceledContext(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	appendN(t, d, s, "k", 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.Append(ctx, driver.AppendRequest{Stream: s, ExpectedVersion: version(1), IdempotencyKey: "late", Event: ev("t", 1)})
	e := requireCode(t, err, errcode.ProviderUnavailable)
	if e.Evidence[driver.EvidenceCommitState] != driver.CommitNotSent {
		t.Fatalf("a canceled append claims commit state %q", e.Evidence[driver.EvidenceCommitState])
	}
	_, err = d.Read(ctx, driver.ReadRequest{Stream: s})
	requireCode(t, err, errcode.ProviderUnavailable)
	if h := head(t, d, s); h.Version != 1 {
		t.Fatalf("a canceled append wrote: %d", h.Version)
	}
}

// testClosed: a closed driver refuses every call with a typed failure, and
// Close is idempotent.
func testClosed(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	appendN(t, d, s, "k", 1)
	if err := d.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	ctx := ctxFor(t)
	_, err := d.Append(ctx, driver.AppendRequest{Stream: s, IdempotencyKey: "k", Event: ev("t", 1)})
	requireCode(t, err, errcode.ProviderUnavailable)
	_, err = d.Read(ctx, driver.ReadRequest{Stream: s})
	requireCode(t, err, errcode.ProviderUnavailable)
	_, err = d.InspectKey(ctx, driver.InspectRequest{Stream: s})
	requireCode(t, err, errcode.ProviderUnavailable)
	_, err = d.ListKeys(ctx, driver.ListRequest{Source: s.Source, Resource: s.Resource})
	requireCode(t, err, errcode.ProviderUnavailable)
}
