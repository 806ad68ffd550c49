package driver

import (
	"encoding/json"
	"time"
)

// PacketSchema is the schema of every data operation result.
const PacketSchema = "runx.data.operation_result.v1"

// Operation names, as the data-store skill's methods name them.
const (
	OperationAppend  = "append_event"
	OperationRead    = "read_events"
	OperationInspect = "read_projection"
	OperationList    = "list_stream_heads"
)

// Packet statuses.
const (
	StatusCommitted = "committed" // an append committed (or its replay)
	StatusRead      = "read"      // a read answered
	StatusRefused   = "refused"   // the request was refused; nothing was written
	StatusFailed    = "failed"    // the provider failed; see the code for the commit state
)

// TimeLayout is how packets write times: UTC, millisecond precision. Drivers
// store commit times at millisecond precision so every provider round-trips
// them exactly.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// CommitTime is a clock reading as drivers store it.
func CommitTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Millisecond)
}

// AppendPacket is the result of append_event, field for field and in the
// order the governed data-plane specification shows it.
//
// result_digest is the digest of the packet's RFC 8785 form without
// result_digest and without provider: it proves the data fact, not which
// backend holds it, so the same history has the same digests on every driver.
// The event is bound through projection_digest, which folds its event_digest.
type AppendPacket struct {
	Schema           string      `json:"schema"`
	DataSourceRef    string      `json:"data_source_ref"`
	Provider         string      `json:"provider"`
	Operation        string      `json:"operation"`
	Resource         string      `json:"resource"`
	AggregateID      string      `json:"aggregate_id"`
	Status           string      `json:"status"`
	BeforeVersion    int64       `json:"before_version"`
	AfterVersion     int64       `json:"after_version"`
	IdempotencyKey   string      `json:"idempotency_key"`
	EventRef         string      `json:"event_ref"`
	ResultDigest     string      `json:"result_digest"`
	ProjectionDigest string      `json:"projection_digest"`
	Redactions       []Redaction `json:"redactions"`
}

// Packet is the result packet of the append. A replay's packet is identical
// to the original commit's.
func (r AppendResult) Packet() AppendPacket {
	return AppendPacket{
		Schema:           PacketSchema,
		DataSourceRef:    r.Source,
		Provider:         r.Provider,
		Operation:        OperationAppend,
		Resource:         r.Resource,
		AggregateID:      r.Key,
		Status:           StatusCommitted,
		BeforeVersion:    r.BeforeVersion,
		AfterVersion:     r.AfterVersion,
		IdempotencyKey:   r.IdempotencyKey,
		EventRef:         r.EventRef,
		ResultDigest:     r.ResultDigest,
		ProjectionDigest: r.ProjectionDigest,
		Redactions:       nonNil(r.Redactions),
	}
}

func (p AppendPacket) digest() string {
	return canonObject{
		"schema":            p.Schema,
		"data_source_ref":   p.DataSourceRef,
		"operation":         p.Operation,
		"resource":          p.Resource,
		"aggregate_id":      p.AggregateID,
		"status":            p.Status,
		"before_version":    p.BeforeVersion,
		"after_version":     p.AfterVersion,
		"idempotency_key":   p.IdempotencyKey,
		"event_ref":         p.EventRef,
		"projection_digest": p.ProjectionDigest,
		"redactions":        redactionsCanon(p.Redactions),
	}.Digest()
}

// EventPacket is one event in a read_events packet.
type EventPacket struct {
	Version          int64           `json:"version"`
	EventRef         string          `json:"event_ref"`
	EventType        string          `json:"event_type"`
	EventDigest      string          `json:"event_digest"`
	ProjectionDigest string          `json:"projection_digest"`
	IdempotencyKey   string          `json:"idempotency_key"`
	CommittedAt      string          `json:"committed_at"`
	Event            json.RawMessage `json:"event"`
}

// ReadPacket is the result of read_events. before_version and after_version
// are both the stream's version the page is consistent with (a read changes
// nothing), and projection_digest is the stream's at that version.
//
// Its result_digest binds each event by its identity and event_digest rather
// than its body bytes, so a page's digest costs one hash per event; a body
// altered by read-time redaction is named in redactions.
type ReadPacket struct {
	Schema           string        `json:"schema"`
	DataSourceRef    string        `json:"data_source_ref"`
	Provider         string        `json:"provider"`
	Operation        string        `json:"operation"`
	Resource         string        `json:"resource"`
	AggregateID      string        `json:"aggregate_id"`
	Status           string        `json:"status"`
	BeforeVersion    int64         `json:"before_version"`
	AfterVersion     int64         `json:"after_version"`
	Limit            int           `json:"limit"`
	Events           []EventPacket `json:"events"`
	HasMore          bool          `json:"has_more"`
	NextAfterVersion int64         `json:"next_after_version"`
	ResultDigest     string        `json:"result_digest"`
	ProjectionDigest string        `json:"projection_digest"`
	Redactions       []Redaction   `json:"redactions"`
}

// Packet is the result packet of the read.
func (r ReadResult) Packet() ReadPacket {
	events := make([]EventPacket, len(r.Events))
	identities := make([]canonObject, len(r.Events))
	for i, e := range r.Events {
		events[i] = EventPacket{
			Version:          e.Version,
			EventRef:         e.Ref,
			EventType:        e.Type,
			EventDigest:      e.Digest,
			ProjectionDigest: e.ProjectionDigest,
			IdempotencyKey:   e.IdempotencyKey,
			CommittedAt:      e.CommittedAt.UTC().Format(TimeLayout),
			Event:            e.Data,
		}
		identities[i] = canonObject{
			"version":           e.Version,
			"event_ref":         e.Ref,
			"event_type":        e.Type,
			"event_digest":      e.Digest,
			"projection_digest": e.ProjectionDigest,
			"idempotency_key":   e.IdempotencyKey,
			"committed_at":      events[i].CommittedAt,
		}
	}
	p := ReadPacket{
		Schema:           PacketSchema,
		DataSourceRef:    r.Source,
		Provider:         r.Provider,
		Operation:        OperationRead,
		Resource:         r.Resource,
		AggregateID:      r.Key,
		Status:           StatusRead,
		BeforeVersion:    r.Version,
		AfterVersion:     r.Version,
		Limit:            r.Limit,
		Events:           events,
		HasMore:          r.HasMore,
		NextAfterVersion: r.NextAfterVersion,
		ProjectionDigest: r.ProjectionDigest,
		Redactions:       nonNil(r.Redactions),
	}
	p.ResultDigest = canonObject{
		"schema":             p.Schema,
		"data_source_ref":    p.DataSourceRef,
		"operation":          p.Operation,
		"resource":           p.Resource,
		"aggregate_id":       p.AggregateID,
		"status":             p.Status,
		"before_version":     p.BeforeVersion,
		"after_version":      p.AfterVersion,
		"limit":              p.Limit,
		"events":             identities,
		"has_more":           p.HasMore,
		"next_after_version": p.NextAfterVersion,
		"projection_digest":  p.ProjectionDigest,
		"redactions":         redactionsCanon(p.Redactions),
	}.Digest()
	return p
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
