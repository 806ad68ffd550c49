package driver

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func board() Resource {
	return Resource{Name: "board_events", Kind: KindEventStream, PartitionKey: "aggregate_id"}
}

func appendReq(event string) AppendRequest {
	return AppendRequest{
		Stream:         Stream{Source: "tenant://acme/board", Resource: board(), Key: "posting-123"},
		IdempotencyKey: "posting-123:claim:agent-9",
		Event:          []byte(event),
	}
}

func TestEventTypeDerivation(t *testing.T) {
	cases := []struct {
		event, want string
	}{
		{`{"type":"posting.claimed","payload":{}}`, "posting.claimed"},
		{`{"effect_family":"operator_inbox","operation":"disposition"}`, "operator_inbox.disposition"},
		{`{"type":"explicit","effect_family":"a","operation":"b"}`, "explicit"},
		{`{"effect_family":"only_family"}`, DefaultEventType},
		{`{"operation":"only_operation"}`, DefaultEventType},
		{`{"payload":{"type":"nested.is.not.top"}}`, DefaultEventType},
		{`{"Type":"case.matters"}`, DefaultEventType},
	}
	for _, c := range cases {
		p, err := PrepareAppend(appendReq(c.event), mustLimits(t))
		if err != nil {
			t.Fatalf("%s: %v", c.event, err)
		}
		if p.EventType != c.want {
			t.Errorf("%s: event type %q, want %q", c.event, p.EventType, c.want)
		}
	}
}

func TestEventRefusals(t *testing.T) {
	cases := []struct {
		name  string
		event string
		code  Code
	}{
		{"array", `[1,2]`, errcode.InvalidEvent},
		{"string", `"x"`, errcode.InvalidEvent},
		{"malformed", `{"a":}`, errcode.InvalidEvent},
		{"trailing", `{"a":1} {}`, errcode.InvalidEvent},
		{"duplicate keys", `{"a":1,"a":2}`, errcode.InvalidEvent},
		{"type not a string", `{"type":5}`, errcode.InvalidEvent},
		{"type with space", `{"type":"a b"}`, errcode.InvalidEvent},
		{"empty type", `{"type":""}`, errcode.InvalidEvent},
		{"bad operation", `{"effect_family":"a","operation":"b c"}`, errcode.InvalidEvent},
		{"empty", ``, errcode.InvalidEvent},
	}
	for _, c := range cases {
		_, err := PrepareAppend(appendReq(c.event), mustLimits(t))
		if CodeOf(err) != c.code {
			t.Errorf("%s: got %v, want code %s", c.name, err, c.code)
		}
	}
}

func TestEventTooLarge(t *testing.T) {
	lim, err := Limits{MaxEventBytes: 100, MaxResponseBytes: 1000}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	big := `{"payload":"` + strings.Repeat("x", 100) + `"}`
	if _, err := PrepareAppend(appendReq(big), lim); CodeOf(err) != errcode.EventTooLarge {
		t.Fatalf("got %v, want event_too_large", err)
	}
	padded := `{"a":1` + strings.Repeat(" ", 300) + `}`
	if _, err := PrepareAppend(appendReq(padded), lim); CodeOf(err) != errcode.EventTooLarge {
		t.Fatalf("a grossly padded event is refused before parsing: got %v", err)
	}
}

// The same event in any key order or spacing is the same stored bytes and the
// same digest, which is what makes a retry an idempotent replay.
func TestEventCanonicalForm(t *testing.T) {
	a, err := PrepareAppend(appendReq(`{"type":"t","payload":{"b":1,"a":[1.0,"\u00e9"]}}`), mustLimits(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := PrepareAppend(appendReq(" {\"payload\" : {\"a\":[1,\"é\"],\"b\":1e0},\"type\":\"t\"}\n"), mustLimits(t))
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Event) != `{"payload":{"a":[1,"é"],"b":1},"type":"t"}` {
		t.Fatalf("canonical form: %s", a.Event)
	}
	if a.EventDigest != b.EventDigest || string(a.Event) != string(b.Event) {
		t.Fatalf("equal events differ: %s vs %s", a.Event, b.Event)
	}
	if a.EventDigest != Digest(a.Event) || !ValidDigest(a.EventDigest) {
		t.Fatalf("event digest %s", a.EventDigest)
	}
}

func TestAppendRequestRefusals(t *testing.T) {
	ok := appendReq(`{"type":"t"}`)
	neg := int64(-1)
	cases := []struct {
		name string
		mut  func(r *AppendRequest)
		code Code
	}{
		{"no source", func(r *AppendRequest) { r.Source = "" }, errcode.InvalidRequest},
		{"source with newline", func(r *AppendRequest) { r.Source = "a\nb" }, errcode.InvalidRequest},
		{"no resource", func(r *AppendRequest) { r.Resource.Name = "" }, errcode.InvalidRequest},
		{"resource with colon", func(r *AppendRequest) { r.Resource.Name = "a:b" }, errcode.InvalidRequest},
		{"undeclared resource", func(r *AppendRequest) { r.Resource.Kind = "" }, errcode.SchemaRequired},
		{"other kind", func(r *AppendRequest) { r.Resource.Kind = "table" }, errcode.SchemaRequired},
		{"no key", func(r *AppendRequest) { r.Key = "" }, errcode.BroadRead},
		{"key with space", func(r *AppendRequest) { r.Key = "a b" }, errcode.InvalidRequest},
		{"key too long", func(r *AppendRequest) { r.Key = strings.Repeat("k", 193) }, errcode.InvalidRequest},
		{"no idempotency key", func(r *AppendRequest) { r.IdempotencyKey = "" }, errcode.IdempotencyKeyRequired},
		{"idempotency key with control", func(r *AppendRequest) { r.IdempotencyKey = "a\x00" }, errcode.InvalidRequest},
		{"negative expected version", func(r *AppendRequest) { r.ExpectedVersion = &neg }, errcode.InvalidRequest},
		{"bad redaction pointer", func(r *AppendRequest) { r.Resource.Secret = []string{"payload"} }, errcode.InvalidRequest},
		{"whole-event redaction", func(r *AppendRequest) { r.Resource.Private = []string{""} }, errcode.InvalidRequest},
	}
	for _, c := range cases {
		r := ok
		r.Resource.Secret = nil
		c.mut(&r)
		if _, err := PrepareAppend(r, mustLimits(t)); CodeOf(err) != c.code {
			t.Errorf("%s: got %v, want %s", c.name, err, c.code)
		}
	}
	if _, err := PrepareAppend(ok, mustLimits(t)); err != nil {
		t.Fatalf("the valid request is refused: %v", err)
	}
	withColonKey := ok
	withColonKey.Key = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	if _, err := PrepareAppend(withColonKey, mustLimits(t)); err != nil {
		t.Fatalf("a digest key is refused: %v", err)
	}
}

func mustLimits(t *testing.T) Limits {
	t.Helper()
	l, err := Limits{}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLimitsNormalize(t *testing.T) {
	for _, l := range []Limits{
		{MaxPageEvents: 501},
		{MaxEventBytes: MaxEventBytesCeiling + 1},
		{MaxResponseBytes: MaxResponseBytesCeiling + 1},
		{MaxEventBytes: 2000, MaxResponseBytes: 1000},
		{MaxPageEvents: -1},
	} {
		if _, err := l.Normalize(); CodeOf(err) != errcode.InvalidConfig {
			t.Errorf("%+v: got %v, want invalid_config", l, err)
		}
	}
}

func TestEventTypeScannerEdgeCases(t *testing.T) {
	cases := []struct{ event, want string }{
		{`{"a":{"type":"inner"},"b":["}",{"type":"x"}],"c":"\"type\":\"no\"","type":"outer"}`, "outer"},
		{`{"a\"type":"x","z":1}`, DefaultEventType},
		{`{"effect_family":"fam","nested":[[[]]],"operation":"op","x":null}`, "fam.op"},
		{`{"type":"esc\u0061ped"}`, "escaped"},
		{`{}`, DefaultEventType},
	}
	for _, c := range cases {
		p, err := PrepareAppend(appendReq(c.event), mustLimits(t))
		if err != nil {
			t.Fatalf("%s: %v", c.event, err)
		}
		if p.EventType != c.want {
			t.Errorf("%s: %q, want %q", c.event, p.EventType, c.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":1`, `{"a":1}x`, `[]`} {
		if scanTopMembers([]byte(bad), func(_, _ []byte) {}) {
			t.Errorf("scanner accepted %q", bad)
		}
	}
}
