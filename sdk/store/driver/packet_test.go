package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/runxhq/runx/sdk/errcode"
)

var fixedTime = time.Date(2026, 7, 14, 0, 0, 0, 0, time.UTC)

// The projection digest is pinned to its documented definition.
func TestProjectionDefinition(t *testing.T) {
	g := sha256.Sum256([]byte("runx.data.projection.v1"))
	if GenesisProjection != "sha256:"+hex.EncodeToString(g[:]) {
		t.Fatal("genesis is not SHA-256 of the label")
	}
	e := Digest([]byte(`{"type":"t"}`))
	eRaw, _ := hex.DecodeString(e[7:])
	step := sha256.Sum256(append(g[:], eRaw...))
	got, err := NextProjection(GenesisProjection, e)
	if err != nil || got != "sha256:"+hex.EncodeToString(step[:]) {
		t.Fatalf("P(1) = %s, %v", got, err)
	}
	folded, err := RecomputeProjection([]string{e})
	if err != nil || folded != got {
		t.Fatalf("recompute %s %v", folded, err)
	}
	if _, err := NextProjection("sha256:XYZ", e); CodeOf(err) != errcode.StoreCorrupt {
		t.Fatalf("a malformed stored digest: %v", err)
	}
}

// The append packet is exactly the specification's: these keys in this order.
func TestAppendPacketShape(t *testing.T) {
	p, err := PrepareAppend(appendReq(`{"type":"posting.claimed","payload":{"actor":"agent-9"}}`), mustLimits(t))
	if err != nil {
		t.Fatal(err)
	}
	res := p.Result("postgres", 3, GenesisProjection, CommitTime(fixedTime), false)
	b, err := json.Marshal(res.Packet())
	if err != nil {
		t.Fatal(err)
	}
	keys := orderedKeys(t, b)
	want := []string{"schema", "data_source_ref", "provider", "operation", "resource", "aggregate_id", "status",
		"before_version", "after_version", "idempotency_key", "event_ref", "result_digest", "projection_digest", "redactions"}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Fatalf("packet keys\n got %v\nwant %v", keys, want)
	}
	if !strings.Contains(string(b), `"event_ref":"board_events:posting-123:3"`) ||
		!strings.Contains(string(b), `"before_version":2,"after_version":3`) ||
		!strings.Contains(string(b), `"redactions":[]`) ||
		!strings.Contains(string(b), `"schema":"runx.data.operation_result.v1"`) {
		t.Fatalf("packet: %s", b)
	}
	// result_digest: RFC 8785 of the packet without result_digest and provider.
	var m map[string]any
	json.Unmarshal(b, &m)
	delete(m, "result_digest")
	delete(m, "provider")
	plain, _ := json.Marshal(m)
	canonical, _ := jcs.Transform(plain)
	if res.ResultDigest != Digest(canonical) {
		t.Fatalf("result digest %s is not the digest of %s", res.ResultDigest, canonical)
	}
	// Provider-neutral: the same fact on another provider has the same digest.
	if other := p.Result("redis", 3, GenesisProjection, CommitTime(fixedTime), true); other.ResultDigest != res.ResultDigest {
		t.Fatal("result digest depends on the provider or on replay")
	}
}

func orderedKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		t.Fatal("not an object")
	}
	var keys []string
	for dec.More() {
		tok, _ := dec.Token()
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return keys
}

func TestFailurePacket(t *testing.T) {
	id := StreamID{Source: "tenant://a", Resource: "r", Key: "k"}
	f := Failure("sqlite", OperationAppend, id, VersionConflict(1, 4))
	if f.Status != StatusRefused || f.Code != errcode.VersionConflict || f.CurrentVersion == nil || *f.CurrentVersion != 4 {
		t.Fatalf("version conflict packet %+v", f)
	}
	s := NewScrubber("s3cret")
	fail := s.Failure("postgres", "append", CommitUnknown, errors.New("dial postgres://u:s3cret@h: reset"))
	f = Failure("postgres", OperationAppend, id, fail)
	if f.Status != StatusFailed || f.Code != errcode.AmbiguousCommit || f.Evidence[EvidenceCommitState] != CommitUnknown {
		t.Fatalf("ambiguous packet %+v", f)
	}
	b, _ := json.Marshal(f)
	if strings.Contains(string(b), "s3cret") || strings.Contains(fail.Error(), "s3cret") || strings.Contains(errors.Unwrap(fail).Error(), "s3cret") {
		t.Fatalf("a credential leaked: %s", b)
	}
	if !errors.Is(fail, ErrAmbiguousCommit) || errors.Is(fail, ErrProviderUnavailable) {
		t.Fatal("errors.Is does not match by code")
	}
	if Failure("x", OperationRead, id, errors.New("bug")).Code != errcode.AmbiguousCommit {
		t.Fatal("an untyped error must fail closed")
	}
}

func TestProjectionAndListPackets(t *testing.T) {
	s := Stream{Source: "tenant://a", Resource: board(), Key: "k"}
	empty := EmptyHead("sqlite", s).Packet()
	b, _ := json.Marshal(empty)
	if !strings.Contains(string(b), `"last_event_ref":null`) || empty.ProjectionDigest != GenesisProjection {
		t.Fatalf("empty projection packet: %s", b)
	}
	plan, err := PrepareList(ListRequest{Source: "tenant://a", Resource: board(), Limit: 1}, mustLimits(t))
	if err != nil {
		t.Fatal(err)
	}
	heads := []Head{{StreamID: StreamID{Key: "a"}, Version: 1, CommittedAt: fixedTime}, {StreamID: StreamID{Key: "b"}, Version: 2, CommittedAt: fixedTime}}
	res, err := plan.Finish("sqlite", heads)
	if err != nil {
		t.Fatal(err)
	}
	lp := res.Packet()
	if !lp.HasMore || lp.NextCursor == nil || len(lp.Heads) != 1 || lp.Heads[0].LastEventRef != "board_events:a:1" {
		t.Fatalf("list packet %+v", lp)
	}
	if !ValidDigest(lp.ResultDigest) {
		t.Fatal("list result digest")
	}
}
