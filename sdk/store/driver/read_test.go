package driver

import (
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func readReq(after *int64, limit int) ReadRequest {
	return ReadRequest{Stream: Stream{Source: "tenant://a", Resource: board(), Key: "k"}, AfterVersion: after, Limit: limit}
}

func ptr(v int64) *int64 { return &v }

func events(from, to int64, size int) []Event {
	var out []Event
	for v := from; v <= to; v++ {
		data := make([]byte, size)
		for i := range data {
			data[i] = 'x'
		}
		out = append(out, Event{Version: v, Data: data})
	}
	return out
}

func TestReadPaging(t *testing.T) {
	lim := mustLimits(t)
	plan, err := PrepareRead(readReq(ptr(0), 3), lim)
	if err != nil {
		t.Fatal(err)
	}
	r, err := plan.Finish("p", 10, GenesisProjection, events(1, 3, 1))
	if err != nil || !r.HasMore || r.NextAfterVersion != 3 || r.Events[0].Ref != "board_events:k:1" {
		t.Fatalf("first page %+v %v", r, err)
	}
	plan, _ = PrepareRead(readReq(ptr(9), 3), lim)
	r, err = plan.Finish("p", 10, GenesisProjection, events(10, 10, 1))
	if err != nil || r.HasMore || r.NextAfterVersion != 10 {
		t.Fatalf("last page %+v %v", r, err)
	}
	plan, _ = PrepareRead(readReq(ptr(10), 3), lim)
	r, err = plan.Finish("p", 10, GenesisProjection, nil)
	if err != nil || r.HasMore || r.NextAfterVersion != 10 {
		t.Fatalf("caught-up page %+v %v", r, err)
	}
	plan, _ = PrepareRead(readReq(nil, 3), lim)
	r, err = plan.Finish("p", 10, GenesisProjection, events(8, 10, 1))
	// Versions 1..7 are older than the tail: it has more.
	if err != nil || !r.HasMore || r.NextAfterVersion != 10 || len(r.Events) != 3 {
		t.Fatalf("tail %+v %v", r, err)
	}
	plan, _ = PrepareRead(readReq(nil, 3), lim)
	r, err = plan.Finish("p", 0, "", nil)
	if err != nil || r.Version != 0 || r.ProjectionDigest != GenesisProjection || r.NextAfterVersion != 0 || r.HasMore {
		t.Fatalf("empty stream %+v %v", r, err)
	}
	plan, _ = PrepareRead(readReq(nil, 3), lim)
	if r, err = plan.Finish("p", 3, GenesisProjection, events(1, 3, 1)); err != nil || r.HasMore {
		t.Fatalf("a tail of the whole stream %+v %v", r, err)
	}
}

func TestReadRefusals(t *testing.T) {
	lim := mustLimits(t)
	if _, err := PrepareRead(readReq(nil, 501), lim); CodeOf(err) != errcode.PageLimitExceeded {
		t.Errorf("limit 501: %v", err)
	}
	if _, err := PrepareRead(readReq(ptr(-1), 1), lim); CodeOf(err) != errcode.InvalidRequest {
		t.Errorf("negative cursor: %v", err)
	}
	back := readReq(ptr(4), 1)
	back.PreviousAfterVersion = ptr(5)
	if _, err := PrepareRead(back, lim); CodeOf(err) != errcode.CursorBackwards {
		t.Errorf("backwards: %v", err)
	}
	plan, _ := PrepareRead(readReq(ptr(11), 1), lim)
	if _, err := plan.Finish("p", 10, GenesisProjection, nil); CodeOf(err) != errcode.CursorAhead {
		t.Errorf("ahead: %v", err)
	}
	noKey := readReq(nil, 1)
	noKey.Key = ""
	if _, err := PrepareRead(noKey, lim); CodeOf(err) != errcode.BroadRead {
		t.Errorf("broad read: %v", err)
	}
	schemaFree := readReq(nil, 1)
	schemaFree.Resource.Kind = ""
	if _, err := PrepareRead(schemaFree, lim); CodeOf(err) != errcode.SchemaRequired {
		t.Errorf("schema-free read: %v", err)
	}
}

func TestReadIntegrity(t *testing.T) {
	lim := mustLimits(t)
	plan, _ := PrepareRead(readReq(ptr(0), 5), lim)
	gap := append(events(1, 2, 1), events(4, 4, 1)...)
	if _, err := plan.Finish("p", 10, GenesisProjection, gap); CodeOf(err) != errcode.StoreCorrupt {
		t.Errorf("gap: %v", err)
	}
	if _, err := plan.Finish("p", 10, GenesisProjection, events(1, 2, 1)); CodeOf(err) != errcode.StoreCorrupt {
		t.Errorf("short page before the head: %v", err)
	}
	tail, _ := PrepareRead(readReq(nil, 5), lim)
	if _, err := tail.Finish("p", 3, GenesisProjection, nil); CodeOf(err) != errcode.StoreCorrupt {
		t.Errorf("missing events: %v", err)
	}
}

func TestReadResponseBytesCap(t *testing.T) {
	lim, _ := Limits{MaxEventBytes: 10, MaxResponseBytes: 25}.Normalize()
	plan, _ := PrepareRead(readReq(ptr(0), 5), lim)
	r, err := plan.Finish("p", 5, GenesisProjection, events(1, 5, 10))
	if err != nil || len(r.Events) != 2 || !r.HasMore || r.NextAfterVersion != 2 {
		t.Fatalf("capped forward page %+v %v", r, err)
	}
	tail, _ := PrepareRead(readReq(nil, 5), lim)
	r, err = tail.Finish("p", 5, GenesisProjection, events(1, 5, 10))
	if err != nil || len(r.Events) != 2 || r.Events[0].Version != 4 || !r.HasMore {
		t.Fatalf("capped tail %+v %v", r, err)
	}
	big, _ := PrepareRead(readReq(ptr(0), 5), lim)
	if _, err := big.Finish("p", 1, GenesisProjection, events(1, 1, 30)); CodeOf(err) != errcode.ResponseTooLarge {
		t.Fatalf("oversized event: %v", err)
	}
}

func TestListCursor(t *testing.T) {
	lim := mustLimits(t)
	req := ListRequest{Source: "tenant://a", Resource: board(), Limit: 2}
	plan, _ := PrepareList(req, lim)
	heads := []Head{{StreamID: StreamID{Key: "a"}, Version: 1}, {StreamID: StreamID{Key: "b"}, Version: 1}, {StreamID: StreamID{Key: "c"}, Version: 1}}
	r, err := plan.Finish("p", heads)
	if err != nil || !r.HasMore || len(r.Heads) != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	req.Cursor = r.NextCursor
	next, err := PrepareList(req, lim)
	if err != nil || next.AfterKey != "b" {
		t.Fatalf("cursor did not resume after b: %+v %v", next, err)
	}
	other := req
	other.Resource.Name = "other"
	if _, err := PrepareList(other, lim); CodeOf(err) != errcode.CursorInvalid {
		t.Errorf("foreign cursor: %v", err)
	}
	for _, bad := range []string{"!!", "e30", r.NextCursor + "x"} {
		req.Cursor = bad
		if _, err := PrepareList(req, lim); CodeOf(err) != errcode.CursorInvalid {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if _, err := plan.Finish("p", []Head{{StreamID: StreamID{Key: "b"}, Version: 1}, {StreamID: StreamID{Key: "a"}, Version: 1}}); CodeOf(err) != errcode.StoreCorrupt {
		t.Errorf("out of order heads: %v", err)
	}
	noResource := ListRequest{Source: "tenant://a"}
	if _, err := PrepareList(noResource, lim); CodeOf(err) != errcode.InvalidRequest {
		t.Errorf("list without resource: %v", err)
	}
}
