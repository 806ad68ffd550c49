package driver

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Driver is a store provider: an event store of append-only streams, each
// addressed by a data source, a declared resource and a partition key.
//
// Every method is safe for concurrent use. A method either returns its result
// or an error; a failure is never an empty result. Errors a caller can act on
// are *Error values with a stable Code; compare them with errors.Is against
// the Err sentinels or read the code with CodeOf.
type Driver interface {
	// Provider names the storage behind the driver ("sqlite", "postgres",
	// "redis"); it is the provider field of every result packet.
	Provider() string

	// Append adds one event to a stream if the stream is still at
	// ExpectedVersion, exactly once per idempotency key. An append whose key
	// was already committed with the same event returns that committed result
	// again (Replayed is set) whatever the stream's version now; the same key
	// with a different event is refused with ErrIdempotencyConflict.
	Append(ctx context.Context, req AppendRequest) (AppendResult, error)

	// Read returns one bounded page of a stream: without AfterVersion the
	// latest tail, with it the events strictly after it in ascending order.
	Read(ctx context.Context, req ReadRequest) (ReadResult, error)

	// InspectKey returns a stream's head. A stream with no events is at
	// version 0 with the genesis projection digest; that is an answer, not an
	// error.
	InspectKey(ctx context.Context, req InspectRequest) (Head, error)

	// ListKeys pages through the heads of one resource's streams in ascending
	// byte order of their keys, continuing from an opaque cursor.
	ListKeys(ctx context.Context, req ListRequest) (ListResult, error)

	// Close releases the driver's connections. It is idempotent; any call
	// after it fails with ErrProviderUnavailable.
	Close() error
}

// ResourceKind is the kind of a declared resource. This version knows one.
type ResourceKind string

// KindEventStream is an append-only, versioned stream of events per key.
const KindEventStream ResourceKind = "event_stream"

// Resource is the declaration of a resource as its data-source binding states
// it. A request must carry it: a store refuses to touch a resource nobody
// declared (ErrSchemaRequired), because a schema-free read is how a model
// would explore data it was never granted.
type Resource struct {
	// Name is the resource name, e.g. "board_events".
	Name string
	// Kind must be KindEventStream.
	Kind ResourceKind
	// PartitionKey names the input that addresses a stream (evidence only;
	// "aggregate_id" when empty).
	PartitionKey string
	// Secret and Private list the event fields, as JSON Pointers (RFC 6901,
	// with "*" matching every member or element at one level), whose values
	// never reach storage, results or evidence. See redact.go.
	Secret  []string
	Private []string
}

// Stream addresses one stream: a data source, a declared resource, and the
// value of its partition key.
type Stream struct {
	Source   string // data_source_ref, e.g. "tenant://acme/board"
	Resource Resource
	Key      string // the partition key's value (aggregate_id)
}

// ID is the stream's address without its declaration.
func (s Stream) ID() StreamID {
	return StreamID{Source: s.Source, Resource: s.Resource.Name, Key: s.Key}
}

// StreamID is the address of a stream as results report it.
type StreamID struct {
	Source   string
	Resource string
	Key      string
}

// EventRef is the stable reference of the event at version:
// "<resource>:<key>:<version>". Resource names cannot hold ':' and the version
// is last, so the reference parses from the right even when a key holds ':'.
func EventRef(resource, key string, version int64) string {
	return resource + ":" + key + ":" + strconv.FormatInt(version, 10)
}

// AppendRequest appends one event.
type AppendRequest struct {
	Stream
	// ExpectedVersion, when set, is the version the stream must be at; a stale
	// one is refused with ErrVersionConflict naming the current version and
	// nothing is appended. Nil appends at whatever version the stream is.
	ExpectedVersion *int64
	// IdempotencyKey is required: it makes a retry return the committed
	// result instead of appending twice.
	IdempotencyKey string
	// Event is a JSON object. It is stored in canonical form (RFC 8785) after
	// redaction.
	Event json.RawMessage
}

// AppendResult is a committed append.
type AppendResult struct {
	Provider string
	StreamID
	BeforeVersion    int64
	AfterVersion     int64
	IdempotencyKey   string
	EventRef         string
	EventType        string
	EventDigest      string
	ProjectionDigest string // the stream's projection digest at AfterVersion
	ResultDigest     string
	Redactions       []Redaction
	CommittedAt      time.Time
	// Replayed is set when this is the result of an earlier append with the
	// same idempotency key and event; nothing was appended by this call.
	Replayed bool
}

// ReadRequest reads one page of a stream.
type ReadRequest struct {
	Stream
	// AfterVersion selects the mode. Nil reads the latest tail of up to Limit
	// events. A value (0 for the first page) reads the events whose version is
	// strictly greater, ascending; continue with NextAfterVersion while
	// HasMore. A value beyond the stream's version is refused
	// (ErrCursorAhead): that cursor did not come from this stream.
	AfterVersion *int64
	// PreviousAfterVersion is the AfterVersion of the page this one continues,
	// set by a caller that pages. A continuation that moves the cursor
	// backwards is refused (ErrCursorBackwards): re-reading events already
	// consumed would hand a reducer duplicates.
	PreviousAfterVersion *int64
	// Limit is the most events to return: 1..Limits.MaxPageEvents (at most
	// 500); 0 means DefaultPageEvents.
	Limit int
}

// ReadResult is one page of a stream.
type ReadResult struct {
	Provider string
	StreamID
	// Version and ProjectionDigest are the stream's head that Events are
	// consistent with: the page holds no event beyond it and no gap before
	// it (a stream only grows at its end, so every event up to the head is
	// final).
	Version          int64
	ProjectionDigest string
	Events           []Event
	// HasMore, on a forward page, is set when events after the last
	// returned one exist: continue with AfterVersion = NextAfterVersion. On
	// a tail page it is set when events older than the oldest returned one
	// exist, which are read forward from AfterVersion 0.
	HasMore          bool
	NextAfterVersion int64
	Limit            int
	Redactions       []Redaction
}

// Event is a committed event as read back.
type Event struct {
	Version          int64
	Ref              string
	Type             string
	Digest           string // event_digest of the stored (redacted) body
	ProjectionDigest string // the stream's projection digest at Version
	IdempotencyKey   string
	CommittedAt      time.Time
	Data             json.RawMessage // canonical JSON
}

// InspectRequest reads one stream's head.
type InspectRequest struct {
	Stream
}

// Head is a stream's latest state. The zero head (version 0, genesis
// projection digest, empty last-event fields) is a stream with no events.
type Head struct {
	Provider string
	StreamID
	Version          int64
	LastEventRef     string
	LastEventType    string
	LastEventDigest  string
	ProjectionDigest string
	CommittedAt      time.Time // of the last event; zero for version 0
}

// ListRequest pages through one resource's stream heads. There is no way to
// list across resources or sources: that is a broad export.
type ListRequest struct {
	Source   string
	Resource Resource
	// Cursor is a NextCursor this resource's listing returned, or empty for
	// the first page. Callers never synthesize it.
	Cursor string
	// Limit is 1..Limits.MaxPageEvents; 0 means DefaultPageEvents.
	Limit int
}

// ListResult is one page of stream heads.
type ListResult struct {
	Provider   string
	Source     string
	Resource   string
	Heads      []Head
	HasMore    bool
	NextCursor string // empty when !HasMore
	Limit      int
}
