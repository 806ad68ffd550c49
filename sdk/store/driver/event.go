package driver

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// DefaultEventType labels an event that carries neither a type nor an
// effect_family and operation.
const DefaultEventType = "data.event"

// DigestPrefix starts every digest: "sha256:" and 64 lowercase hex digits.
const DigestPrefix = canon.DigestPrefix

// PreparedAppend is an append that passed every driver-independent check,
// with everything derived from the request alone. A driver adds only what the
// store knows: the version, the projection digest and the commit time.
type PreparedAppend struct {
	Stream          Stream
	ExpectedVersion *int64
	IdempotencyKey  string
	// Event is the canonical JSON (RFC 8785) of the redacted event: the exact
	// bytes stored and digested.
	Event       []byte
	EventType   string
	EventDigest string
	// Redactions are the paths redacted from this request's event.
	Redactions []Redaction
}

// PrepareAppend validates an append and derives its stored form.
func PrepareAppend(req AppendRequest, lim Limits) (*PreparedAppend, error) {
	if err := ValidateStream(req.Stream); err != nil {
		return nil, err
	}
	if err := validateIdempotencyKey(req.IdempotencyKey); err != nil {
		return nil, err
	}
	if req.ExpectedVersion != nil && *req.ExpectedVersion < 0 {
		return nil, Errorf(errcode.InvalidRequest, "expected_version must be 0 or more")
	}
	// A whitespace-padded document may be larger than its canonical form, but
	// not without bound: refuse before parsing anything huge.
	if len(req.Event) > 2*lim.MaxEventBytes {
		return nil, Errorf(errcode.EventTooLarge, "the event is %d bytes; the cap is %d", len(req.Event), lim.MaxEventBytes)
	}
	event, redactions, err := canonicalEvent(req.Event, req.Resource)
	if err != nil {
		return nil, err
	}
	if len(event) > lim.MaxEventBytes {
		return nil, Errorf(errcode.EventTooLarge, "the event is %d bytes in canonical form; the cap is %d", len(event), lim.MaxEventBytes)
	}
	eventType, err := deriveEventType(event)
	if err != nil {
		return nil, err
	}
	return &PreparedAppend{
		Stream:          req.Stream,
		ExpectedVersion: req.ExpectedVersion,
		IdempotencyKey:  req.IdempotencyKey,
		Event:           event,
		EventType:       eventType,
		EventDigest:     Digest(event),
		Redactions:      redactions,
	}, nil
}

// Result is the committed result of this append at version: what the driver
// returns after appending, and again, identically, on a replay.
func (p *PreparedAppend) Result(provider string, version int64, projectionDigest string, committedAt time.Time, replayed bool) AppendResult {
	ref := EventRef(p.Stream.Resource.Name, p.Stream.Key, version)
	redactions := make([]Redaction, len(p.Redactions))
	for i, r := range p.Redactions {
		r.EventRef = ref
		redactions[i] = r
	}
	r := AppendResult{
		Provider:         provider,
		StreamID:         p.Stream.ID(),
		BeforeVersion:    version - 1,
		AfterVersion:     version,
		IdempotencyKey:   p.IdempotencyKey,
		EventRef:         ref,
		EventType:        p.EventType,
		EventDigest:      p.EventDigest,
		ProjectionDigest: projectionDigest,
		Redactions:       redactions,
		CommittedAt:      committedAt,
		Replayed:         replayed,
	}
	r.ResultDigest = r.Packet().digest()
	return r
}

// Digest is "sha256:<hex>" of bytes.
func Digest(b []byte) string { return canon.DigestBytes(b) }

// CanonicalJSON returns the RFC 8785 form of a JSON document: sdk/canon's,
// the one implementation runx has.
func CanonicalJSON(doc []byte) ([]byte, error) {
	return canon.CanonicalJSON(doc)
}

// canonicalEvent canonicalizes an event, redacting the resource's declared
// fields first so that no secret is ever digested or stored.
func canonicalEvent(raw []byte, r Resource) ([]byte, []Redaction, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, nil, Errorf(errcode.InvalidEvent, "event must be a JSON object")
	}
	if !hasRules(r) {
		out, err := canon.CanonicalJSON(raw)
		if err != nil {
			return nil, nil, Errorf(errcode.InvalidEvent, "event is not valid JSON: %s", safeJSONError(err))
		}
		return out, nil, nil
	}
	// Canonicalize first so that malformed input and duplicate keys are
	// refused exactly as without rules, then redact the canonical document.
	canonical, err := canon.CanonicalJSON(raw)
	if err != nil {
		return nil, nil, Errorf(errcode.InvalidEvent, "event is not valid JSON: %s", safeJSONError(err))
	}
	doc, err := decodeJSON(canonical)
	if err != nil {
		return nil, nil, Errorf(errcode.InvalidEvent, "event is not valid JSON: %s", safeJSONError(err))
	}
	doc, redactions := redact(doc, r)
	if len(redactions) == 0 {
		return canonical, nil, nil
	}
	out, err := encodeCanonical(doc)
	if err != nil {
		return nil, nil, Errorf(errcode.InvalidEvent, "event is not valid JSON: %s", safeJSONError(err))
	}
	return out, redactions, nil
}

func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers keep their literal until canonicalization
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errTrailingData
	}
	return doc, nil
}

func encodeCanonical(doc any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return canon.CanonicalJSON(buf.Bytes())
}

type jsonError string

func (e jsonError) Error() string { return string(e) }

const errTrailingData = jsonError("data after the top-level value")

// safeJSONError keeps a parser's message short: parsers quote the offending
// token, and an event's tokens are payload, which errors must not carry.
func safeJSONError(err error) string {
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	if bytes.ContainsAny([]byte(msg), "\"'`") {
		return "malformed JSON"
	}
	return msg
}
