package driver

import (
	"strconv"

	"github.com/runxhq/runx/sdk/errcode"
)

// ReadPlan is a validated read: what a driver must fetch and how to turn it
// into a page.
type ReadPlan struct {
	Stream Stream
	// AfterVersion is nil for the tail: the driver fetches the latest Limit
	// events. Otherwise the driver fetches the first Limit events whose
	// version is greater.
	AfterVersion *int64
	Limit        int
	maxBytes     int
}

// PrepareRead validates a read.
func PrepareRead(req ReadRequest, lim Limits) (*ReadPlan, error) {
	if err := ValidateStream(req.Stream); err != nil {
		return nil, err
	}
	limit, err := lim.pageLimit(req.Limit)
	if err != nil {
		return nil, err
	}
	if req.AfterVersion != nil && *req.AfterVersion < 0 {
		return nil, Errorf(errcode.InvalidRequest, "after_version must be 0 or more (0 reads from the first event)")
	}
	if req.PreviousAfterVersion != nil {
		if req.AfterVersion == nil {
			return nil, Errorf(errcode.InvalidRequest, "a continuation needs after_version: pass the previous page's next_after_version")
		}
		if *req.AfterVersion < *req.PreviousAfterVersion {
			return nil, Errorf(errcode.CursorBackwards,
				"after_version %d is behind the previous page's cursor %d: cursors only move forward; continue with the previous page's next_after_version",
				*req.AfterVersion, *req.PreviousAfterVersion)
		}
	}
	return &ReadPlan{Stream: req.Stream, AfterVersion: req.AfterVersion, Limit: limit, maxBytes: lim.MaxResponseBytes}, nil
}

// Finish builds the page from what the driver read: the stream's head
// version and projection digest (0 and "" for a stream with no events), and
// the fetched events in ascending version order, none beyond that head (a
// driver reads the head first and cuts off events appended since, or reads
// both in one snapshot). It checks the events against the store's
// invariants, applies the response-bytes cap and read-time redaction, and
// sets the paging fields.
func (p *ReadPlan) Finish(provider string, version int64, projection string, events []Event) (ReadResult, error) {
	if version == 0 && projection == "" {
		projection = GenesisProjection
	}
	if p.AfterVersion != nil && *p.AfterVersion > version {
		return ReadResult{}, Errorf(errcode.CursorAhead,
			"after_version %d is beyond the stream's version %d: the cursor did not come from this stream, or the store was restored or rebound; read again from 0",
			*p.AfterVersion, version).WithCurrentVersion(version)
	}
	if err := p.checkSequence(version, events); err != nil {
		return ReadResult{}, err
	}
	events, err := p.capBytes(events)
	if err != nil {
		return ReadResult{}, err
	}
	var redactions []Redaction
	refPrefix := p.Stream.Resource.Name + ":" + p.Stream.Key + ":"
	for i := range events {
		e := &events[i]
		e.Ref = refPrefix + strconv.FormatInt(e.Version, 10)
		data, rs, err := redactStored(e.Data, p.Stream.Resource, e.Ref)
		if err != nil {
			return ReadResult{}, err
		}
		e.Data = data
		redactions = append(redactions, rs...)
	}
	r := ReadResult{
		Provider:         provider,
		StreamID:         p.Stream.ID(),
		Version:          version,
		ProjectionDigest: projection,
		Events:           events,
		Limit:            p.Limit,
		Redactions:       redactions,
	}
	switch {
	case len(events) > 0:
		r.NextAfterVersion = events[len(events)-1].Version
	case p.AfterVersion != nil:
		r.NextAfterVersion = *p.AfterVersion
	default:
		r.NextAfterVersion = version
	}
	if p.AfterVersion != nil {
		r.HasMore = r.NextAfterVersion < version
	} else {
		// A tail has more when events older than its oldest exist: read
		// them forward from 0.
		r.HasMore = len(events) > 0 && events[0].Version > 1
	}
	return r, nil
}

// checkSequence refuses a page that contradicts the store's invariants rather
// than passing a gap or a reordering on to a reducer.
func (p *ReadPlan) checkSequence(version int64, events []Event) error {
	if len(events) > p.Limit {
		return Errorf(errcode.StoreCorrupt, "the store returned %d events for a page of %d", len(events), p.Limit)
	}
	if len(events) == 0 {
		if version > 0 && (p.AfterVersion == nil || *p.AfterVersion < version) {
			return Errorf(errcode.StoreCorrupt, "the stream is at version %d but its events are missing", version)
		}
		return nil
	}
	first := int64(0)
	if p.AfterVersion != nil {
		first = *p.AfterVersion + 1
	} else {
		first = version - int64(len(events)) + 1
	}
	for i, e := range events {
		if e.Version != first+int64(i) || e.Version > version {
			return Errorf(errcode.StoreCorrupt, "the stream's versions are not contiguous at version %d (head %d)", e.Version, version)
		}
	}
	if p.AfterVersion == nil && events[len(events)-1].Version != version {
		return Errorf(errcode.StoreCorrupt, "the stream's tail ends at version %d but its head is at %d", events[len(events)-1].Version, version)
	}
	if p.AfterVersion != nil && len(events) < p.Limit && events[len(events)-1].Version != version {
		return Errorf(errcode.StoreCorrupt, "the stream's events end at version %d but its head is at %d", events[len(events)-1].Version, version)
	}
	return nil
}

// capBytes keeps a page within the response-bytes cap: a forward page ends
// early (and so has more), a tail drops its oldest events.
func (p *ReadPlan) capBytes(events []Event) ([]Event, error) {
	total := 0
	if p.AfterVersion != nil {
		for i, e := range events {
			total += len(e.Data)
			if total > p.maxBytes {
				if i == 0 {
					return nil, p.tooLarge(e)
				}
				return events[:i], nil
			}
		}
		return events, nil
	}
	for i := len(events) - 1; i >= 0; i-- {
		total += len(events[i].Data)
		if total > p.maxBytes {
			if i == len(events)-1 {
				return nil, p.tooLarge(events[i])
			}
			return events[i+1:], nil
		}
	}
	return events, nil
}

func (p *ReadPlan) tooLarge(e Event) error {
	return Errorf(errcode.ResponseTooLarge, "event version %d alone is %d bytes, over the response cap of %d", e.Version, len(e.Data), p.maxBytes)
}

// PrepareInspect validates an inspection.
func PrepareInspect(req InspectRequest) error {
	return ValidateStream(req.Stream)
}

// EmptyHead is the head of a stream with no events.
func EmptyHead(provider string, s Stream) Head {
	return Head{Provider: provider, StreamID: s.ID(), ProjectionDigest: GenesisProjection}
}
