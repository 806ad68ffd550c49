package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// testRequestRefusals: every gate refuses with its code, through the driver,
// and nothing is written.
func testRequestRefusals(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	big := json.RawMessage(`{"payload":"` + strings.Repeat("x", driver.DefaultMaxEventBytes) + `"}`)
	cases := []struct {
		name string
		mut  func(r *driver.AppendRequest)
		code driver.Code
	}{
		{"no source", func(r *driver.AppendRequest) { r.Source = "" }, errcode.InvalidRequest},
		{"no resource", func(r *driver.AppendRequest) { r.Resource.Name = "" }, errcode.InvalidRequest},
		{"schema-free", func(r *driver.AppendRequest) { r.Resource.Kind = "" }, errcode.SchemaRequired},
		{"undeclared kind", func(r *driver.AppendRequest) { r.Resource.Kind = "table" }, errcode.SchemaRequired},
		{"no partition key", func(r *driver.AppendRequest) { r.Key = "" }, errcode.BroadRead},
		{"unsafe partition key", func(r *driver.AppendRequest) { r.Key = "a b" }, errcode.InvalidRequest},
		{"no idempotency key", func(r *driver.AppendRequest) { r.IdempotencyKey = "" }, errcode.IdempotencyKeyRequired},
		{"negative expected version", func(r *driver.AppendRequest) { r.ExpectedVersion = version(-1) }, errcode.InvalidRequest},
		{"not an object", func(r *driver.AppendRequest) { r.Event = json.RawMessage(`[1]`) }, errcode.InvalidEvent},
		{"malformed", func(r *driver.AppendRequest) { r.Event = json.RawMessage(`{"a":`) }, errcode.InvalidEvent},
		{"duplicate keys", func(r *driver.AppendRequest) { r.Event = json.RawMessage(`{"a":1,"a":1}`) }, errcode.InvalidEvent},
		{"too large", func(r *driver.AppendRequest) { r.Event = big }, errcode.EventTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := driver.AppendRequest{Stream: s, ExpectedVersion: version(0), IdempotencyKey: "k", Event: ev("t", 1)}
			c.mut(&req)
			_, err := d.Append(ctxFor(t), req)
			requireCode(t, err, c.code)
		})
	}
	if h := head(t, d, s); h.Version != 0 {
		t.Fatalf("a refused append wrote: version %d", h.Version)
	}
}

// testRedaction: declared fields never reach storage or results, and a field
// declared after the fact is redacted from reads.
func testRedaction(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	s.Resource.Secret = []string{"/payload/token"}
	s.Resource.Private = []string{"/payload/owner/email", "/payload/notes/*"}
	event := json.RawMessage(`{"type":"card.created","payload":{"token":"tok-123456","owner":{"email":"a@example.com","name":"Ada"},"notes":["n1","n2"]}}`)
	r := appendOK(t, d, s, version(0), "secret-1", event)
	wantPaths := []string{"/payload/notes/0", "/payload/notes/1", "/payload/owner/email", "/payload/token"}
	if got := redactionPaths(r.Redactions); strings.Join(got, ",") != strings.Join(wantPaths, ",") {
		t.Fatalf("append redactions %v, want %v", got, wantPaths)
	}
	for _, rd := range r.Redactions {
		if rd.EventRef != r.EventRef {
			t.Fatalf("redaction names %s", rd.EventRef)
		}
	}
	events := readAll(t, d, s)
	stored := string(events[0].Data)
	for _, leaked := range []string{"tok-123456", "a@example.com", "n1"} {
		if strings.Contains(stored, leaked) {
			t.Fatalf("a declared value was stored: %s", stored)
		}
	}
	if !strings.Contains(stored, `"token":"[redacted:secret]"`) || !strings.Contains(stored, `"email":"[redacted:private]"`) || !strings.Contains(stored, `"name":"Ada"`) {
		t.Fatalf("stored form %s", stored)
	}
	b, _ := json.Marshal(r.Packet())
	if strings.Contains(string(b), "tok-123456") {
		t.Fatal("a secret reached the result packet")
	}
	// The same event with another secret value is the same event: a replay.
	if again := appendOK(t, d, s, version(0), "secret-1", json.RawMessage(strings.Replace(string(event), "tok-123456", "tok-other", 1))); !again.Replayed {
		t.Fatal("a changed secret made a different event")
	}
	// A field declared later is redacted from reads, and reported.
	s.Resource.Private = append(s.Resource.Private, "/payload/owner/name")
	page, err := d.Read(ctxFor(t), driver.ReadRequest{Stream: s, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page.Events[0].Data), "Ada") {
		t.Fatalf("a newly declared field was read: %s", page.Events[0].Data)
	}
	if len(page.Redactions) != 1 || page.Redactions[0].Path != "/payload/owner/name" || page.Redactions[0].EventRef != r.EventRef {
		t.Fatalf("read redactions %+v", page.Redactions)
	}
}

func redactionPaths(rs []driver.Redaction) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Path)
	}
	return out
}

// goldenEvents pin the driver-independent definitions (canonical form, event
// digest, projection digest, result digest): the same appends give the same
// digests on every driver.
var goldenEvents = []struct {
	key, event                                         string
	eventDigest, projectionDigest, resultDigest, etype string
}{
	{"golden-1", `{"type":"posting.created","payload":{"title":"Golden"}}`,
		"sha256:bddeb944052ae4b1b4696343a3d7e2fc0a5b1e07797c510136f69924fa338260",
		"sha256:097da84208c109551dff490cb4872b4a6b00caf24363f8ca33bbb79fe2ac10da",
		"sha256:3aa3bcf32ce6fd8f530ceb1e9ecc32a87c5bf11ce8e356c09e6d9b539cddb82d",
		"posting.created"},
	{"golden-2", `{"effect_family":"operator_inbox","operation":"disposition","payload":{"n":2}}`,
		"sha256:de40d5c703196bb5b81281e17beae93b72b95880aad2b4e3f9e2b91c546d4926",
		"sha256:9ef2997878ee5bf448c76a34e0a6052bfd2ec1f5cd797cdb1347b4ccce9d4660",
		"sha256:050e75834a017e210dcc2793dda21583e4edbe61497aaadd94a9896870d79d66",
		"operator_inbox.disposition"},
	{"golden-3", `{"payload":{"\u00e9":"\u2028","z":1.50}}`,
		"sha256:10068806b61931dde288c1beeb9a6cd014295d45de161038a0c44bc8febe1895",
		"sha256:636e2bcb4565ba913cab4e5142813a972e3575990d4dda7f8dbff0f95c283a29",
		"sha256:ad34073f48d0297bfebe023f73aaf57b5770e3a3b13d7d24e84b6827084662b4",
		driver.DefaultEventType},
}

func testGoldenDigests(t *testing.T, d driver.Driver) {
	s := driver.Stream{Source: "tenant://conformance/golden", Resource: Board(), Key: "posting-123"}
	for i, g := range goldenEvents {
		expected := version(int64(i))
		if i == 2 {
			expected = nil
		}
		r := appendOK(t, d, s, expected, g.key, json.RawMessage(g.event))
		if r.EventType != g.etype || r.EventDigest != g.eventDigest || r.ProjectionDigest != g.projectionDigest || r.ResultDigest != g.resultDigest {
			t.Errorf("golden %d:\n type %s digest %s\n projection %s\n result %s", i+1, r.EventType, r.EventDigest, r.ProjectionDigest, r.ResultDigest)
		}
	}
}
