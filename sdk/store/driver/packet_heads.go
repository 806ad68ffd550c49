package driver

import "maps"

// ProjectionState is a stream's head inside a read_projection packet. The
// last_* fields are null for a stream with no events.
type ProjectionState struct {
	Version         int64   `json:"version"`
	EventCount      int64   `json:"event_count"`
	LastEventRef    *string `json:"last_event_ref"`
	LastEventType   *string `json:"last_event_type"`
	LastEventDigest *string `json:"last_event_digest"`
	CommittedAt     *string `json:"committed_at"`
}

// ProjectionPacket is the result of read_projection (key.inspect).
type ProjectionPacket struct {
	Schema           string          `json:"schema"`
	DataSourceRef    string          `json:"data_source_ref"`
	Provider         string          `json:"provider"`
	Operation        string          `json:"operation"`
	Resource         string          `json:"resource"`
	AggregateID      string          `json:"aggregate_id"`
	Status           string          `json:"status"`
	BeforeVersion    int64           `json:"before_version"`
	AfterVersion     int64           `json:"after_version"`
	Projection       ProjectionState `json:"projection"`
	ResultDigest     string          `json:"result_digest"`
	ProjectionDigest string          `json:"projection_digest"`
	Redactions       []Redaction     `json:"redactions"`
}

// Packet is the read_projection packet of the head.
func (h Head) Packet() ProjectionPacket {
	state := ProjectionState{Version: h.Version, EventCount: h.Version}
	if h.Version > 0 {
		at := h.CommittedAt.UTC().Format(TimeLayout)
		state.LastEventRef, state.LastEventType, state.LastEventDigest, state.CommittedAt =
			&h.LastEventRef, &h.LastEventType, &h.LastEventDigest, &at
	}
	p := ProjectionPacket{
		Schema:           PacketSchema,
		DataSourceRef:    h.Source,
		Provider:         h.Provider,
		Operation:        OperationInspect,
		Resource:         h.Resource,
		AggregateID:      h.Key,
		Status:           StatusRead,
		BeforeVersion:    h.Version,
		AfterVersion:     h.Version,
		Projection:       state,
		ProjectionDigest: h.ProjectionDigest,
		Redactions:       []Redaction{},
	}
	p.ResultDigest = canonObject{
		"schema":            p.Schema,
		"data_source_ref":   p.DataSourceRef,
		"operation":         p.Operation,
		"resource":          p.Resource,
		"aggregate_id":      p.AggregateID,
		"status":            p.Status,
		"before_version":    p.BeforeVersion,
		"after_version":     p.AfterVersion,
		"projection":        state.canon(),
		"projection_digest": p.ProjectionDigest,
		"redactions":        []canonObject{},
	}.Digest()
	return p
}

func (s ProjectionState) canon() canonObject {
	opt := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	return canonObject{
		"version":           s.Version,
		"event_count":       s.EventCount,
		"last_event_ref":    opt(s.LastEventRef),
		"last_event_type":   opt(s.LastEventType),
		"last_event_digest": opt(s.LastEventDigest),
		"committed_at":      opt(s.CommittedAt),
	}
}

// HeadPacket is one stream head in a list_stream_heads packet.
type HeadPacket struct {
	AggregateID      string `json:"aggregate_id"`
	Version          int64  `json:"version"`
	LastEventRef     string `json:"last_event_ref"`
	LastEventType    string `json:"last_event_type"`
	LastEventDigest  string `json:"last_event_digest"`
	ProjectionDigest string `json:"projection_digest"`
	CommittedAt      string `json:"committed_at"`
}

// ListPacket is the result of list_stream_heads. It has no aggregate_id: it
// lists keys of one resource.
type ListPacket struct {
	Schema        string       `json:"schema"`
	DataSourceRef string       `json:"data_source_ref"`
	Provider      string       `json:"provider"`
	Operation     string       `json:"operation"`
	Resource      string       `json:"resource"`
	Status        string       `json:"status"`
	Limit         int          `json:"limit"`
	Heads         []HeadPacket `json:"heads"`
	HasMore       bool         `json:"has_more"`
	NextCursor    *string      `json:"next_cursor"`
	ResultDigest  string       `json:"result_digest"`
	Redactions    []Redaction  `json:"redactions"`
}

// Packet is the list_stream_heads packet of the page.
func (r ListResult) Packet() ListPacket {
	heads := make([]HeadPacket, len(r.Heads))
	canon := make([]canonObject, len(r.Heads))
	for i, h := range r.Heads {
		heads[i] = HeadPacket{
			AggregateID:      h.Key,
			Version:          h.Version,
			LastEventRef:     h.LastEventRef,
			LastEventType:    h.LastEventType,
			LastEventDigest:  h.LastEventDigest,
			ProjectionDigest: h.ProjectionDigest,
			CommittedAt:      h.CommittedAt.UTC().Format(TimeLayout),
		}
		canon[i] = canonObject{
			"aggregate_id":      h.Key,
			"version":           h.Version,
			"last_event_ref":    h.LastEventRef,
			"last_event_type":   h.LastEventType,
			"last_event_digest": h.LastEventDigest,
			"projection_digest": h.ProjectionDigest,
			"committed_at":      heads[i].CommittedAt,
		}
	}
	p := ListPacket{
		Schema:        PacketSchema,
		DataSourceRef: r.Source,
		Provider:      r.Provider,
		Operation:     OperationList,
		Resource:      r.Resource,
		Status:        StatusRead,
		Limit:         r.Limit,
		Heads:         heads,
		HasMore:       r.HasMore,
		Redactions:    []Redaction{},
	}
	var cursor any
	if r.HasMore {
		p.NextCursor = &r.NextCursor
		cursor = r.NextCursor
	}
	p.ResultDigest = canonObject{
		"schema":          p.Schema,
		"data_source_ref": p.DataSourceRef,
		"operation":       p.Operation,
		"resource":        p.Resource,
		"status":          p.Status,
		"limit":           p.Limit,
		"heads":           canon,
		"has_more":        p.HasMore,
		"next_cursor":     cursor,
		"redactions":      []canonObject{},
	}.Digest()
	return p
}

// FailurePacket is the packet of an operation that was refused or failed: a
// failure is always this packet, never an empty list of events.
type FailurePacket struct {
	Schema         string            `json:"schema"`
	DataSourceRef  string            `json:"data_source_ref"`
	Provider       string            `json:"provider"`
	Operation      string            `json:"operation"`
	Resource       string            `json:"resource"`
	AggregateID    string            `json:"aggregate_id,omitempty"`
	Status         string            `json:"status"`
	Code           Code              `json:"code"`
	Message        string            `json:"message"`
	CurrentVersion *int64            `json:"current_version,omitempty"`
	Evidence       map[string]string `json:"evidence,omitempty"`
}

// Failure is the packet of err for an operation on a stream (Key is empty for
// list_stream_heads).
func Failure(provider, operation string, id StreamID, err error) FailurePacket {
	e := AsError(err)
	status := StatusFailed
	if Refusal(e.Code) {
		status = StatusRefused
	}
	return FailurePacket{
		Schema:         PacketSchema,
		DataSourceRef:  id.Source,
		Provider:       provider,
		Operation:      operation,
		Resource:       id.Resource,
		AggregateID:    id.Key,
		Status:         status,
		Code:           e.Code,
		Message:        e.Message,
		CurrentVersion: e.CurrentVersion,
		Evidence:       maps.Clone(e.Evidence),
	}
}
