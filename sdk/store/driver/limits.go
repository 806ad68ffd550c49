package driver

import "github.com/runxhq/runx/sdk/errcode"

// Ceilings no configuration may raise. A binding or an operator may narrow
// them; nothing widens them, so every store answers within the same bounds.
const (
	// MaxPageEvents bounds a page of events or stream heads (spec: 500).
	MaxPageEvents = 500
	// MaxEventBytesCeiling bounds one canonical event: the JavaScript worker's
	// input ceiling, so any stored event can be handed to a reducer.
	MaxEventBytesCeiling = 4 << 20
	// MaxResponseBytesCeiling bounds the event bytes of one page.
	MaxResponseBytesCeiling = 32 << 20
)

// Defaults used where a Limits field or a request limit is zero.
const (
	DefaultPageEvents       = 100
	DefaultMaxEventBytes    = 1 << 20
	DefaultMaxResponseBytes = 4 << 20
)

// Limits are a driver's caps. The zero value means the defaults.
type Limits struct {
	// MaxEventBytes caps one event in canonical form; a larger append is
	// refused with ErrEventTooLarge.
	MaxEventBytes int
	// MaxResponseBytes caps the summed event bytes of one read page. A page
	// that reaches it ends early with HasMore, so it bounds memory without
	// failing a read.
	MaxResponseBytes int
	// MaxPageEvents caps a page's events or heads; a larger requested limit
	// is refused with ErrPageLimitExceeded.
	MaxPageEvents int
}

// Normalize fills defaults and refuses caps above the ceilings.
func (l Limits) Normalize() (Limits, error) {
	if l.MaxEventBytes == 0 {
		l.MaxEventBytes = DefaultMaxEventBytes
	}
	if l.MaxResponseBytes == 0 {
		l.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if l.MaxPageEvents == 0 {
		l.MaxPageEvents = MaxPageEvents
	}
	switch {
	case l.MaxEventBytes < 0 || l.MaxEventBytes > MaxEventBytesCeiling:
		return l, Errorf(errcode.InvalidConfig, "max event bytes must be 1..%d", MaxEventBytesCeiling)
	case l.MaxResponseBytes < 0 || l.MaxResponseBytes > MaxResponseBytesCeiling:
		return l, Errorf(errcode.InvalidConfig, "max response bytes must be 1..%d", MaxResponseBytesCeiling)
	case l.MaxPageEvents < 0 || l.MaxPageEvents > MaxPageEvents:
		return l, Errorf(errcode.InvalidConfig, "max page events must be 1..%d", MaxPageEvents)
	case l.MaxEventBytes > l.MaxResponseBytes:
		// Otherwise an event could be stored that no page can return.
		return l, Errorf(errcode.InvalidConfig, "max event bytes (%d) must not exceed max response bytes (%d)", l.MaxEventBytes, l.MaxResponseBytes)
	}
	return l, nil
}

// pageLimit resolves a requested page limit.
func (l Limits) pageLimit(requested int) (int, error) {
	switch {
	case requested == 0:
		return min(DefaultPageEvents, l.MaxPageEvents), nil
	case requested < 0:
		return 0, Errorf(errcode.InvalidRequest, "limit must be positive")
	case requested > l.MaxPageEvents:
		return 0, Errorf(errcode.PageLimitExceeded, "limit %d exceeds the page cap of %d; page with after_version instead", requested, l.MaxPageEvents)
	}
	return requested, nil
}
