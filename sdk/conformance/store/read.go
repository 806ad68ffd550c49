package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

func testReadEmptyStream(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	for _, after := range []*int64{nil, version(0)} {
		page, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, AfterVersion: after, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if page.Version != 0 || len(page.Events) != 0 || page.HasMore || page.NextAfterVersion != 0 || page.ProjectionDigest != driver.GenesisProjection {
			t.Fatalf("empty stream page %+v", page)
		}
		if p := page.Packet(); p.Events == nil || p.Status != driver.StatusRead {
			t.Fatalf("empty page packet %+v", p)
		}
	}
}

func testReadTail(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	rs := appendN(t, d, s, "k", 7)
	page, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Events) != 3 || page.Events[0].Version != 5 || page.Events[2].Version != 7 {
		t.Fatalf("tail versions %v", versions(page.Events))
	}
	// Four older events exist, so the tail has more.
	if !page.HasMore || page.NextAfterVersion != 7 || page.Version != 7 || page.ProjectionDigest != rs[6].ProjectionDigest {
		t.Fatalf("tail paging fields %+v", page)
	}
	// A tail holding the whole stream has no more.
	whole, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, Limit: 7})
	if err != nil || len(whole.Events) != 7 || whole.HasMore {
		t.Fatalf("whole tail: %d events, has_more %v, %v", len(whole.Events), whole.HasMore, err)
	}
	if page.Events[2].IdempotencyKey != "k-6" || page.Events[2].Digest != rs[6].EventDigest || page.Events[2].Ref != rs[6].EventRef {
		t.Fatalf("tail event %+v", page.Events[2])
	}
	// The default limit applies when none is given.
	def, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s})
	if err != nil || def.Limit != driver.DefaultPageEvents || len(def.Events) != 7 {
		t.Fatalf("default limit: %+v %v", def, err)
	}
}

func testReadForwardPages(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	appendN(t, d, s, "k", 10)
	var got []int64
	after := int64(0)
	var prev *int64
	for pages := 0; ; pages++ {
		page, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, AfterVersion: version(after), PreviousAfterVersion: prev, Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, versions(page.Events)...)
		if page.Version != 10 {
			t.Fatalf("page head version %d", page.Version)
		}
		if !page.HasMore {
			if page.NextAfterVersion != 10 || pages != 2 {
				t.Fatalf("last page: next %d after %d pages", page.NextAfterVersion, pages+1)
			}
			break
		}
		prev = version(after)
		after = page.NextAfterVersion
	}
	if len(got) != 10 || got[0] != 1 || got[9] != 10 {
		t.Fatalf("pages gave %v", got)
	}
	// Caught up: a cursor at the head is an empty page, not an error.
	page, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, AfterVersion: version(10), Limit: 4})
	if err != nil || len(page.Events) != 0 || page.HasMore || page.NextAfterVersion != 10 {
		t.Fatalf("caught-up page %+v %v", page, err)
	}
	// A page starting mid-stream.
	page, err = d.Read(ctxFor(t), driver.ReadRequest{Stream: s, AfterVersion: version(8), Limit: 500})
	if err != nil || jsonOf(versions(page.Events)) != "[9,10]" {
		t.Fatalf("mid-stream page %v %v", versions(page.Events), err)
	}
	checkHistory(t, d, s, readAll(t, d, s))
}

func testReadRefusals(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	appendN(t, d, s, "k", 3)
	read := func(r driver.ReadRequest) error {
		_, err := d.Read(ctxFor(t), r)
		return err
	}
	requireCode(t, read(driver.ReadRequest{Stream: s, Limit: driver.MaxPageEvents + 1}), errcode.PageLimitExceeded)
	requireCode(t, read(driver.ReadRequest{Stream: s, Limit: -1}), errcode.InvalidRequest)
	requireCode(t, read(driver.ReadRequest{Stream: s, AfterVersion: version(-1)}), errcode.InvalidRequest)
	e := requireCode(t, read(driver.ReadRequest{Stream: s, AfterVersion: version(4)}), errcode.CursorAhead)
	if e.CurrentVersion == nil || *e.CurrentVersion != 3 {
		t.Fatalf("cursor_ahead names %v", e.CurrentVersion)
	}
	requireCode(t, read(driver.ReadRequest{Stream: s, AfterVersion: version(1), PreviousAfterVersion: version(2)}), errcode.CursorBackwards)
	noKey := s
	noKey.Key = ""
	requireCode(t, read(driver.ReadRequest{Stream: noKey}), errcode.BroadRead)
	schemaFree := s
	schemaFree.Resource = driver.Resource{Name: s.Resource.Name}
	requireCode(t, read(driver.ReadRequest{Stream: schemaFree}), errcode.SchemaRequired)
	_, err := d.InspectKey(ctxFor(t), driver.InspectRequest{Stream: noKey})
	requireCode(t, err, errcode.BroadRead)
	_, err = d.InspectKey(ctxFor(t), driver.InspectRequest{Stream: schemaFree})
	requireCode(t, err, errcode.SchemaRequired)
}

// testReadResponseBytesCap: a page stops at the response cap (default 4 MiB)
// with has_more, rather than failing or exceeding it.
func testReadResponseBytesCap(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	body := strings.Repeat("x", 900<<10)
	for i := range 6 {
		appendOK(t, d, s, version(int64(i)), "big-"+string(rune('a'+i)), json.RawMessage(`{"type":"big","payload":"`+body+`"}`))
	}
	page, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, AfterVersion: version(0), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Events) != 4 || !page.HasMore || page.NextAfterVersion != 4 {
		t.Fatalf("capped page: %d events, has_more %v, next %d", len(page.Events), page.HasMore, page.NextAfterVersion)
	}
	rest, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, AfterVersion: version(4), Limit: 10})
	if err != nil || len(rest.Events) != 2 || rest.HasMore {
		t.Fatalf("rest of the capped stream: %d %v", len(rest.Events), err)
	}
	tail, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, Limit: 10})
	if err != nil || len(tail.Events) != 4 || tail.Events[3].Version != 6 || !tail.HasMore {
		t.Fatalf("capped tail %v has_more %v %v", versions(tail.Events), tail.HasMore, err)
	}
}

func versions(events []driver.Event) []int64 {
	out := make([]int64, len(events))
	for i, e := range events {
		out[i] = e.Version
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
